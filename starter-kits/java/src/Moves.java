import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Legal moves from a request's {@code legal} object (docs/PROTOCOL.md, "Using the legal
 * object"): every legal attack, a complete podkidnoy cover, the cards to add. Whatever these
 * return is legal; which to choose is your bot's business.
 */
public final class Moves {
    private Moves() {}

    public static final String RANKS = "6789TJQKA";

    /** A card's rank, 0 (six) to 8 (ace). */
    public static int rank(String card) {
        return RANKS.indexOf(card.charAt(0));
    }

    /** Low ranks first, trumps after every non-trump. */
    public static Comparator<String> cheapestFirst(String trumpSuit) {
        return Comparator.comparingInt(c -> rank(c) + (c.substring(1).equals(trumpSuit) ? 10 : 0));
    }

    /**
     * Every legal attack from {@code hand} (the hand after the exchange, when you send
     * "exchange": true). Podkidnoy (sameRank): one or more cards of one rank, at most
     * max(sizes). Prostoy: 1 card; 3 cards with a pair; 5 cards with two pairs (P-5), each size
     * only if listed in sizes (P-6).
     */
    public static List<List<String>> attacks(List<String> hand, List<Integer> sizes, boolean sameRank) {
        List<List<String>> out = new ArrayList<>();
        int max = sizes.stream().mapToInt(Integer::intValue).max().orElse(1);
        Map<Integer, List<String>> byRank = new LinkedHashMap<>();
        for (String c : hand) {
            byRank.computeIfAbsent(rank(c), r -> new ArrayList<>()).add(c);
        }
        if (sameRank) {
            for (List<String> same : byRank.values()) {
                subsets(same, 0, new ArrayList<>(), max, out);
            }
            return out;
        }
        for (String c : hand) {
            out.add(List.of(c));
        }
        List<String[]> pairs = new ArrayList<>();
        for (List<String> same : byRank.values()) {
            for (int a = 0; a < same.size(); a++) {
                for (int b = a + 1; b < same.size(); b++) {
                    pairs.add(new String[] {same.get(a), same.get(b)});
                }
            }
        }
        Set<Set<String>> seen = new HashSet<>();
        if (sizes.contains(3)) {
            for (String[] p : pairs) {
                for (String c : hand) {
                    addUnique(out, seen, List.of(p[0], p[1], c));
                }
            }
        }
        if (sizes.contains(5)) {
            for (int a = 0; a < pairs.size(); a++) {
                for (int b = a + 1; b < pairs.size(); b++) {
                    for (String c : hand) {
                        addUnique(out, seen, List.of(pairs.get(a)[0], pairs.get(a)[1], pairs.get(b)[0],
                                pairs.get(b)[1], c));
                    }
                }
            }
        }
        return out;
    }

    private static void addUnique(List<List<String>> out, Set<Set<String>> seen, List<String> cards) {
        Set<String> set = new HashSet<>(cards);
        if (set.size() == cards.size() && seen.add(set)) {
            out.add(cards);
        }
    }

    private static void subsets(List<String> cards, int from, List<String> cur, int max, List<List<String>> out) {
        for (int i = from; i < cards.size(); i++) {
            cur.add(cards.get(i));
            out.add(new ArrayList<>(cur));
            if (cur.size() < max) {
                subsets(cards, i + 1, cur, max, out);
            }
            cur.remove(cur.size() - 1);
        }
    }

    /**
     * A complete cover: every card of {@code toBeat} beaten by a different card, or null when
     * there is none (then take). Backtracking: a greedy choice can fail (K-7). Beaters are tried
     * in the order of {@code preference}.
     */
    public static List<String[]> fullCover(List<Protocol.ToBeat> toBeat, Comparator<String> preference) {
        List<String[]> pairs = new ArrayList<>();
        return cover(toBeat, 0, new HashSet<>(), pairs, preference) ? pairs : null;
    }

    private static boolean cover(List<Protocol.ToBeat> toBeat, int i, Set<String> used, List<String[]> pairs,
            Comparator<String> preference) {
        if (i == toBeat.size()) {
            return true;
        }
        List<String> beaters = new ArrayList<>(toBeat.get(i).beaters());
        beaters.sort(preference);
        for (String b : beaters) {
            if (used.add(b)) {
                pairs.add(new String[] {toBeat.get(i).attack(), b});
                if (cover(toBeat, i + 1, used, pairs, preference)) {
                    return true;
                }
                pairs.remove(pairs.size() - 1);
                used.remove(b);
            }
        }
        return false;
    }

    /**
     * Prostoy: beat what you can, each attack card with the first free beater in the order of
     * {@code preference}; the rest you pick up (P-8, P-9). Always legal, even empty.
     */
    public static List<String[]> beatWhatYouCan(List<Protocol.ToBeat> toBeat, Comparator<String> preference) {
        List<String[]> pairs = new ArrayList<>();
        Set<String> used = new HashSet<>();
        for (Protocol.ToBeat t : toBeat) {
            List<String> beaters = new ArrayList<>(t.beaters());
            beaters.sort(preference);
            for (String b : beaters) {
                if (used.add(b)) {
                    pairs.add(new String[] {t.attack(), b});
                    break;
                }
            }
        }
        return pairs;
    }

    /** The cards you may add: from addable, at most room of them (K-3, K-6). */
    public static List<String> addable(Protocol.LegalAdd legal, int howMany, Comparator<String> preference) {
        List<String> cards = new ArrayList<>(legal.addable());
        cards.sort(preference);
        return cards.subList(0, Math.min(Math.min(howMany, legal.room()), cards.size()));
    }
}
