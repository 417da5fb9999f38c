import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The Durak protocol v1 messages as Java types (docs/PROTOCOL.md, schemas/), read from and
 * written to JSON lines with {@link Json}. Fields a later minor version adds are ignored, as the
 * protocol asks; a message type this kit does not know is {@link Other}.
 */
public final class Protocol {
    private Protocol() {}

    /** A message from the referee. */
    public sealed interface Message permits Hello, GameStart, Event, Request, Error, GameEnd, MatchEnd, Other {}

    public record Limits(long startupMs, long moveMs, long bankMs, long maxLineBytes) {}

    public record Hello(int protocol, String variant, int players, int seat, int games, Limits limits)
            implements Message {}

    public record GameStart(int game, String variant, int players, int seat, int dealer, int handSize,
            boolean firstGame) implements Message {}

    /** An event: its kind ("attacked", "game_over", ...) and its fields, as JSON values. */
    public record Event(int game, String kind, Map<String, Object> fields) implements Message {}

    public record Time(long moveMs, long bankMs) {}

    /** A card on the table, and what beat it (null while unbeaten). */
    public record TableCard(String attack, String defence) {}

    public record Observation(int seat, String variant, int players, int dealer, List<String> hand,
            List<Integer> handCounts, List<List<String>> known, List<Boolean> active, String trumpSuit,
            String trumpCard, boolean trumpCardInStock, int stock, List<String> discard,
            List<TableCard> table, int attacker, int defender, Integer limit, boolean taking) {}

    /** The trump-six exchange on offer (P-4). */
    public record Exchange(String six, String trumpCard) {}

    /** An attack card to beat, and the cards of the hand that beat it. */
    public record ToBeat(String attack, List<String> beaters) {}

    /** What the bot may do: one of the three kinds below, as the request's decision says. */
    public sealed interface Legal permits LegalAttack, LegalDefend, LegalAdd {}

    public record LegalAttack(List<String> hand, List<Integer> sizes, boolean sameRank, Exchange exchange)
            implements Legal {}

    public record LegalDefend(List<ToBeat> toBeat, List<ToBeat> toBeatAfterExchange, Exchange exchange,
            boolean mustCoverAll, boolean canCover, boolean canTake) implements Legal {}

    public record LegalAdd(List<String> addable, int room, boolean afterTake) implements Legal {}

    public record Request(long id, int game, String decision, Time time, Observation observation, Legal legal)
            implements Message {}

    public record Error(Long id, String fault, String rule, String pointer, String message) implements Message {}

    public record Fault(int seat, String kind, String detail) {}

    public record GameEnd(int game, Integer loser, boolean draw, List<Fault> faults) implements Message {}

    public record MatchEnd(int games, List<Integer> losses, int draws) implements Message {}

    /** A message type this kit does not know (a later version's): ignore it. */
    public record Other(String type, Map<String, Object> fields) implements Message {}

    // ----- reading ------------------------------------------------------------------------------

    /** Read one line from the referee. */
    @SuppressWarnings("unchecked")
    public static Message read(String line) {
        Map<String, Object> m = (Map<String, Object>) Json.parse(line);
        String type = str(m, "type");
        switch (type == null ? "" : type) {
            case "hello": {
                Map<String, Object> l = map(m, "limits");
                return new Hello(num(m, "protocol"), str(m, "variant"), num(m, "players"), num(m, "seat"),
                        num(m, "games"), new Limits(lng(l, "startup_ms"), lng(l, "move_ms"), lng(l, "bank_ms"),
                                lng(l, "max_line_bytes")));
            }
            case "game_start":
                return new GameStart(num(m, "game"), str(m, "variant"), num(m, "players"), num(m, "seat"),
                        num(m, "dealer"), num(m, "hand_size"), bool(m, "first_game"));
            case "event": {
                Map<String, Object> e = map(m, "event");
                return new Event(num(m, "game"), str(e, "kind"), e);
            }
            case "request": {
                Map<String, Object> t = map(m, "time");
                String decision = str(m, "decision");
                return new Request(lng(m, "id"), num(m, "game"), decision,
                        new Time(lng(t, "move_ms"), lng(t, "bank_ms")), observation(map(m, "observation")),
                        legal(decision, map(m, "legal")));
            }
            case "error":
                return new Error(m.get("id") == null ? null : lng(m, "id"), str(m, "fault"), str(m, "rule"),
                        str(m, "pointer"), str(m, "message"));
            case "game_end": {
                List<Fault> faults = new ArrayList<>();
                for (Object o : list(m, "faults")) {
                    Map<String, Object> f = (Map<String, Object>) o;
                    faults.add(new Fault(num(f, "seat"), str(f, "kind"), str(f, "detail")));
                }
                return new GameEnd(num(m, "game"), m.get("loser") == null ? null : num(m, "loser"),
                        bool(m, "draw"), faults);
            }
            case "match_end":
                return new MatchEnd(num(m, "games"), ints(list(m, "losses")), num(m, "draws"));
            default:
                return new Other(type, m);
        }
    }

    @SuppressWarnings("unchecked")
    private static Observation observation(Map<String, Object> o) {
        List<List<String>> known = new ArrayList<>();
        for (Object k : list(o, "known")) {
            known.add(strings((List<Object>) k));
        }
        List<Boolean> active = new ArrayList<>();
        for (Object a : list(o, "active")) {
            active.add((Boolean) a);
        }
        List<TableCard> table = new ArrayList<>();
        for (Object t : list(o, "table")) {
            Map<String, Object> c = (Map<String, Object>) t;
            table.add(new TableCard(str(c, "attack"), str(c, "defence")));
        }
        return new Observation(num(o, "seat"), str(o, "variant"), num(o, "players"), num(o, "dealer"),
                strings(list(o, "hand")), ints(list(o, "hand_counts")), known, active, str(o, "trump_suit"),
                str(o, "trump_card"), bool(o, "trump_card_in_stock"), num(o, "stock"), strings(list(o, "discard")),
                table, num(o, "attacker"), num(o, "defender"), o.get("limit") == null ? null : num(o, "limit"),
                bool(o, "taking"));
    }

    private static Legal legal(String decision, Map<String, Object> l) {
        switch (decision) {
            case "attack":
                return new LegalAttack(strings(list(l, "hand")), ints(list(l, "sizes")), bool(l, "same_rank"),
                        exchange(l));
            case "defend":
                return new LegalDefend(toBeat(list(l, "to_beat")),
                        l.get("to_beat_after_exchange") == null ? null : toBeat(list(l, "to_beat_after_exchange")),
                        exchange(l), bool(l, "must_cover_all"), bool(l, "can_cover"), bool(l, "can_take"));
            default:
                return new LegalAdd(strings(list(l, "addable")), num(l, "room"), bool(l, "after_take"));
        }
    }

    @SuppressWarnings("unchecked")
    private static Exchange exchange(Map<String, Object> l) {
        Object x = l.get("exchange");
        if (x == null) {
            return null;
        }
        Map<String, Object> e = (Map<String, Object>) x;
        return new Exchange(str(e, "six"), str(e, "trump_card"));
    }

    @SuppressWarnings("unchecked")
    private static List<ToBeat> toBeat(List<Object> items) {
        List<ToBeat> out = new ArrayList<>();
        for (Object o : items) {
            Map<String, Object> t = (Map<String, Object>) o;
            out.add(new ToBeat(str(t, "attack"), strings(list(t, "beaters"))));
        }
        return out;
    }

    private static String str(Map<String, Object> m, String k) {
        Object v = m.get(k);
        return v == null ? null : v.toString();
    }

    private static long lng(Map<String, Object> m, String k) {
        return ((Number) m.get(k)).longValue();
    }

    private static int num(Map<String, Object> m, String k) {
        return ((Number) m.get(k)).intValue();
    }

    private static boolean bool(Map<String, Object> m, String k) {
        return Boolean.TRUE.equals(m.get(k));
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Map<String, Object> m, String k) {
        return (Map<String, Object>) m.get(k);
    }

    @SuppressWarnings("unchecked")
    private static List<Object> list(Map<String, Object> m, String k) {
        Object v = m.get(k);
        return v == null ? List.of() : (List<Object>) v;
    }

    private static List<String> strings(List<Object> a) {
        List<String> out = new ArrayList<>();
        for (Object o : a) {
            out.add(o.toString());
        }
        return out;
    }

    private static List<Integer> ints(List<Object> a) {
        List<Integer> out = new ArrayList<>();
        for (Object o : a) {
            out.add(((Number) o).intValue());
        }
        return out;
    }

    // ----- writing ------------------------------------------------------------------------------

    /** The bot's hello. */
    public static String hello(String name, String version) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("type", "hello");
        m.put("protocol", 1);
        m.put("name", name);
        m.put("version", version);
        return Json.write(m);
    }

    private static Map<String, Object> answer(long id, String action) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("type", "answer");
        m.put("id", id);
        m.put("action", action);
        return m;
    }

    /** Attack with these cards (with the trump-six exchange first, if {@code exchange}). */
    public static String attack(long id, List<String> cards, boolean exchange) {
        Map<String, Object> m = answer(id, "attack");
        m.put("cards", cards);
        if (exchange) {
            m.put("exchange", true);
        }
        return Json.write(m);
    }

    /** Beat these [attack, beater] pairs (prostoy: any of them; podkidnoy: all). */
    public static String defend(long id, List<String[]> pairs, boolean exchange) {
        Map<String, Object> m = answer(id, "defend");
        List<Object> ps = new ArrayList<>();
        for (String[] p : pairs) {
            ps.add(List.of(p[0], p[1]));
        }
        m.put("pairs", ps);
        if (exchange) {
            m.put("exchange", true);
        }
        return Json.write(m);
    }

    /** Take the cards (podkidnoy only). */
    public static String take(long id) {
        return Json.write(answer(id, "take"));
    }

    /** Add these cards (podkidnoy only). */
    public static String add(long id, List<String> cards) {
        Map<String, Object> m = answer(id, "add");
        m.put("cards", cards);
        return Json.write(m);
    }

    /** Add nothing. */
    public static String pass(long id) {
        return Json.write(answer(id, "pass"));
    }
}
