// A Durak bot in Java (protocol v1, see docs/PROTOCOL.md). JDK only: no jar, no flag.
//
// It reads one JSON object per line on stdin and answers on stdout, flushing after each line.
// It plays cheap cards first (the same strategy as sample-bots/python/heuristic_bot.py), using
// only each request's "legal" object; it has no randomness, so the same deal gives the same game:
//   attack   prostoy: two low pairs + 1, or a low pair + 1, else the cheapest card (P-5, P-6);
//            podkidnoy: every card of the cheapest non-trump rank, at most max(sizes) (K-4);
//            always the trump-six exchange when it is open (P-4).
//   defend   prostoy: each attack card its cheapest free beater, most constrained first,
//            keeping high trumps while the stock lasts (P-8); podkidnoy: the cheapest complete
//            cover, by backtracking, or take when it would cost a high trump or two (K-7).
//   add      low non-trumps from legal.addable, up to legal.room; after a take, any
//            non-trump (K-6, K-9).
//
// Build and run:  javac -d /tmp/java-bot sample-bots/java/Bot.java
//                 durak check-bot "java -cp /tmp/java-bot Bot"
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

public final class Bot {
    static final String RANKS = "6789TJQKA";

    // ----- decisions --------------------------------------------------------------------------

    char trump;

    /** How much a card is worth keeping: its rank, plus 10 for a trump. */
    int cost(String card) {
        return rank(card) + (card.charAt(1) == trump ? 10 : 0);
    }

    static int rank(String card) {
        return RANKS.indexOf(card.charAt(0));
    }

    List<String> cheapestFirst(List<String> cards) {
        List<String> out = new ArrayList<>(cards);
        out.sort(Comparator.comparingInt(this::cost));
        return out;
    }

    List<String> nonTrumps(List<String> cards) {
        List<String> out = new ArrayList<>();
        for (String c : cards) if (c.charAt(1) != trump) out.add(c);
        return out;
    }

    Map<String, Object> answer(Map<String, Object> req) {
        Map<String, Object> legal = Json.object(req.get("legal"));
        Map<String, Object> obs = Json.object(req.get("observation"));
        trump = Json.string(obs.get("trump_suit")).charAt(0);
        Map<String, Object> reply = new LinkedHashMap<>();
        reply.put("type", "answer");
        reply.put("id", req.get("id"));
        switch (Json.string(req.get("decision"))) {
            case "attack": attack(legal, reply); break;
            case "defend": defend(legal, Json.number(obs.get("stock")), reply); break;
            default: add(legal, reply);
        }
        return reply;
    }

    void attack(Map<String, Object> legal, Map<String, Object> reply) {
        List<String> hand = Json.strings(legal.get("hand"));
        Map<String, Object> swap = legal.get("exchange") == null ? null : Json.object(legal.get("exchange"));
        if (swap != null) { // P-4: the six of trumps out, the (higher) trump card in
            hand.remove(Json.string(swap.get("six")));
            hand.add(Json.string(swap.get("trump_card")));
        }
        hand = cheapestFirst(hand);
        List<String> plain = nonTrumps(hand);
        List<String> pool = plain.isEmpty() ? hand : plain;
        List<Integer> sizes = new ArrayList<>();
        for (Object s : Json.array(legal.get("sizes"))) sizes.add(Json.number(s));
        List<String> cards = new ArrayList<>();
        if (Json.bool(legal.get("same_rank"))) { // podkidnoy K-4: one rank, at most max(sizes)
            int most = sizes.stream().max(Integer::compare).orElse(1);
            for (String c : pool)
                if (c.charAt(0) == pool.get(0).charAt(0) && cards.size() < most) cards.add(c);
        } else { // prostoy P-5: two low pairs + 1, or a low pair + 1, else the lowest card
            List<String> lowPairs = new ArrayList<>(); // cards two by two, cheapest pairs first
            for (int i = 0; i + 1 < plain.size(); i++) {
                String a = plain.get(i), b = plain.get(i + 1);
                if (a.charAt(0) == b.charAt(0) && rank(a) <= RANKS.indexOf('J')) {
                    lowPairs.add(a);
                    lowPairs.add(b);
                    i++;
                }
            }
            for (int need : new int[] {2, 1}) {
                if (sizes.contains(2 * need + 1) && lowPairs.size() >= 2 * need) {
                    cards.addAll(lowPairs.subList(0, 2 * need));
                    for (String c : hand)
                        if (!cards.contains(c)) { cards.add(c); break; }
                    break;
                }
            }
            if (cards.isEmpty()) cards.add(pool.get(0));
        }
        reply.put("action", "attack");
        reply.put("cards", cards);
        reply.put("exchange", swap != null);
    }

    void defend(Map<String, Object> legal, int stock, Map<String, Object> reply) {
        boolean exchange = legal.get("exchange") != null;
        List<Object> toBeat = Json.array(legal.get(exchange ? "to_beat_after_exchange" : "to_beat"));
        List<String> attacks = new ArrayList<>();
        List<List<String>> beaters = new ArrayList<>();
        for (Object item : toBeat) {
            attacks.add(Json.string(Json.object(item).get("attack")));
            beaters.add(cheapestFirst(Json.strings(Json.object(item).get("beaters"))));
        }
        List<List<String>> pairs = new ArrayList<>();
        if (Json.bool(legal.get("must_cover_all"))) { // podkidnoy K-7: cover everything or take
            String[] cover = Json.bool(legal.get("can_cover")) ? cheapestCover(beaters) : null;
            if (cover != null) {
                int trumps = 0;
                boolean costly = false;
                for (String d : cover) {
                    if (d.charAt(1) != trump) continue;
                    trumps++;
                    costly |= rank(d) >= RANKS.indexOf('Q');
                }
                if (!(stock > 0 && (costly || trumps > 1))) {
                    for (int i = 0; i < cover.length; i++) pairs.add(List.of(attacks.get(i), cover[i]));
                    reply.put("action", "defend");
                    reply.put("pairs", pairs);
                    return;
                }
            }
            reply.put("action", "take");
            return;
        }
        // prostoy P-8: beat what is cheap to beat, most constrained attack card first
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < attacks.size(); i++) order.add(i);
        order.sort(Comparator.comparingInt(i -> beaters.get(i).size()));
        Set<String> used = new HashSet<>();
        for (int i : order) {
            for (String b : beaters.get(i)) {
                if (used.contains(b)) continue;
                if (b.charAt(1) != trump || rank(b) < RANKS.indexOf('K') || stock == 0) {
                    pairs.add(List.of(attacks.get(i), b));
                    used.add(b);
                }
                break; // only the cheapest free beater; a high trump is kept instead
            }
        }
        reply.put("action", "defend");
        reply.put("pairs", pairs);
        reply.put("exchange", exchange);
    }

    /** The cheapest way to beat every attack card with distinct beaters, or null. */
    String[] cheapestCover(List<List<String>> beaters) {
        String[] current = new String[beaters.size()];
        String[][] best = {null};
        int[] bestCost = {Integer.MAX_VALUE};
        search(beaters, 0, 0, current, new HashSet<>(), best, bestCost);
        return best[0];
    }

    void search(List<List<String>> beaters, int i, int spent, String[] current, Set<String> used,
            String[][] best, int[] bestCost) {
        if (spent >= bestCost[0]) return;
        if (i == beaters.size()) {
            bestCost[0] = spent;
            best[0] = current.clone();
            return;
        }
        for (String b : beaters.get(i)) {
            if (!used.add(b)) continue;
            current[i] = b;
            search(beaters, i + 1, spent + cost(b), current, used, best, bestCost);
            used.remove(b);
        }
    }

    void add(Map<String, Object> legal, Map<String, Object> reply) {
        int highest = RANKS.indexOf(Json.bool(legal.get("after_take")) ? 'A' : 'T');
        int room = Json.number(legal.get("room"));
        List<String> cards = new ArrayList<>();
        for (String c : cheapestFirst(nonTrumps(Json.strings(legal.get("addable")))))
            if (rank(c) <= highest && cards.size() < room) cards.add(c);
        if (cards.isEmpty()) {
            reply.put("action", "pass");
        } else {
            reply.put("action", "add");
            reply.put("cards", cards);
        }
    }

    // ----- the main loop ----------------------------------------------------------------------

    public static void main(String[] args) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintWriter out = new PrintWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8));
        Bot bot = new Bot();
        for (String line; (line = in.readLine()) != null; ) {
            if (line.isBlank()) continue;
            Map<String, Object> msg;
            try {
                msg = Json.object(Json.parse(line));
            } catch (IllegalArgumentException e) { // never on stdout: it is for protocol lines only
                System.err.println("java-sample: cannot parse the line: " + e.getMessage());
                continue;
            }
            String type = Json.string(msg.get("type"));
            if (type.equals("hello")) {
                Map<String, Object> hello = new LinkedHashMap<>();
                hello.put("type", "hello");
                hello.put("protocol", 1);
                hello.put("name", "java-sample");
                hello.put("version", "1.0");
                out.print(Json.write(hello) + "\n");
            } else if (type.equals("request")) {
                out.print(Json.write(bot.answer(msg)) + "\n");
            } else if (type.equals("match_end")) {
                break;
            }
            out.flush(); // every answer must reach the referee at once
        }
        out.flush();
    }
}

/** A small JSON parser and writer: objects are maps, arrays lists, numbers longs or doubles. */
final class Json {
    private final String text;
    private int at;

    private Json(String text) {
        this.text = text;
    }

    static Object parse(String text) {
        Json p = new Json(text);
        Object v = p.value();
        p.space();
        if (p.at != text.length()) throw p.error("text after the value");
        return v;
    }

    private IllegalArgumentException error(String what) {
        return new IllegalArgumentException(what + " at character " + at);
    }

    private void space() {
        while (at < text.length() && " \t\r\n".indexOf(text.charAt(at)) >= 0) at++;
    }

    private boolean take(String word) {
        if (!text.startsWith(word, at)) return false;
        at += word.length();
        return true;
    }

    private Object value() {
        space();
        if (at >= text.length()) throw error("a value was expected");
        char c = text.charAt(at);
        if (c == '{') {
            at++;
            Map<String, Object> map = new LinkedHashMap<>();
            space();
            if (take("}")) return map;
            do {
                space();
                if (!take("\"")) throw error("a key was expected");
                String key = string();
                space();
                if (!take(":")) throw error("':' was expected");
                map.put(key, value());
                space();
            } while (take(","));
            if (!take("}")) throw error("',' or '}' was expected");
            return map;
        }
        if (c == '[') {
            at++;
            List<Object> list = new ArrayList<>();
            space();
            if (take("]")) return list;
            do {
                list.add(value());
                space();
            } while (take(","));
            if (!take("]")) throw error("',' or ']' was expected");
            return list;
        }
        if (c == '"') {
            at++;
            return string();
        }
        if (take("true")) return Boolean.TRUE;
        if (take("false")) return Boolean.FALSE;
        if (take("null")) return null;
        int start = at;
        while (at < text.length() && "+-0123456789.eE".indexOf(text.charAt(at)) >= 0) at++;
        String number = text.substring(start, at);
        try {
            if (number.matches("-?\\d+")) return Long.parseLong(number);
            return Double.parseDouble(number);
        } catch (NumberFormatException e) {
            at = start;
            throw error("not a value");
        }
    }

    private String string() { // after the opening quote
        StringBuilder out = new StringBuilder();
        while (at < text.length()) {
            char c = text.charAt(at++);
            if (c == '"') return out.toString();
            if (c != '\\') {
                out.append(c);
                continue;
            }
            if (at >= text.length()) break;
            char e = text.charAt(at++);
            switch (e) {
                case 'n': out.append('\n'); break;
                case 't': out.append('\t'); break;
                case 'r': out.append('\r'); break;
                case 'b': out.append('\b'); break;
                case 'f': out.append('\f'); break;
                case 'u':
                    if (at + 4 > text.length()) throw error("a \\u escape is cut off");
                    out.append((char) Integer.parseInt(text.substring(at, at + 4), 16));
                    at += 4;
                    break;
                default: out.append(e); // \" \\ \/
            }
        }
        throw error("a string is not closed");
    }

    static String write(Object v) {
        StringBuilder out = new StringBuilder();
        write(v, out);
        return out.toString();
    }

    private static void write(Object v, StringBuilder out) {
        if (v instanceof Map) {
            out.append('{');
            boolean first = true;
            for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
                if (!first) out.append(',');
                first = false;
                write(e.getKey(), out);
                out.append(':');
                write(e.getValue(), out);
            }
            out.append('}');
        } else if (v instanceof List) {
            out.append('[');
            boolean first = true;
            for (Object item : (List<?>) v) {
                if (!first) out.append(',');
                first = false;
                write(item, out);
            }
            out.append(']');
        } else if (v instanceof String) {
            out.append('"');
            for (char c : ((String) v).toCharArray()) {
                if (c == '"' || c == '\\') out.append('\\').append(c);
                else if (c < 0x20) out.append(String.format("\\u%04x", (int) c));
                else out.append(c);
            }
            out.append('"');
        } else {
            out.append(v); // numbers, booleans, null
        }
    }

    // Typed access, with a clear error for a message of the wrong shape.
    @SuppressWarnings("unchecked")
    static Map<String, Object> object(Object v) {
        if (v instanceof Map) return (Map<String, Object>) v;
        throw new IllegalArgumentException("an object was expected, not " + v);
    }

    @SuppressWarnings("unchecked")
    static List<Object> array(Object v) {
        if (v instanceof List) return (List<Object>) v;
        throw new IllegalArgumentException("an array was expected, not " + v);
    }

    static List<String> strings(Object v) {
        List<String> out = new ArrayList<>();
        for (Object item : array(v)) out.add(string(item));
        return out;
    }

    static String string(Object v) {
        return v instanceof String ? (String) v : "";
    }

    static int number(Object v) {
        return v instanceof Number ? ((Number) v).intValue() : 0;
    }

    static boolean bool(Object v) {
        return Boolean.TRUE.equals(v);
    }
}
