import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Comparator;
import java.util.List;

/**
 * A starter Durak bot in Java (protocol v1): always legal, and plays its cheapest cards first.
 * Change {@link #decide} to make it play better; {@link Moves} lists the legal choices.
 */
public final class Bot {
    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        // Flush after every line: the referee waits for each answer.
        PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
        String line;
        while ((line = in.readLine()) != null) {
            Protocol.Message msg = Protocol.read(line);
            if (msg instanceof Protocol.Hello) {
                out.println(Protocol.hello("java-starter", "1.0"));
                out.flush();
            } else if (msg instanceof Protocol.Request r) {
                out.println(decide(r));
                out.flush();
            } else if (msg instanceof Protocol.Error e) {
                System.err.println("the referee says: " + e.message());
            } else if (msg instanceof Protocol.MatchEnd) {
                return;
            }
            // Events, game_start, game_end and unknown messages: nothing to do.
        }
    }

    /** The answer to a request, as a JSON line. */
    static String decide(Protocol.Request r) {
        Comparator<String> cheap = Moves.cheapestFirst(r.observation().trumpSuit());
        Protocol.Legal legal = r.legal();
        if (legal instanceof Protocol.LegalAttack a) {
            // The attack with the cheapest highest card, then the most cards.
            List<List<String>> all = Moves.attacks(a.hand(), a.sizes(), a.sameRank());
            all.sort(Comparator.<List<String>, String>comparing(c -> c.stream().max(cheap).orElseThrow(), cheap)
                    .thenComparing(c -> -c.size()));
            return Protocol.attack(r.id(), all.get(0), false);
        }
        if (legal instanceof Protocol.LegalDefend d) {
            if (d.mustCoverAll()) {
                List<String[]> cover = Moves.fullCover(d.toBeat(), cheap);
                return cover == null ? Protocol.take(r.id()) : Protocol.defend(r.id(), cover, false);
            }
            return Protocol.defend(r.id(), Moves.beatWhatYouCan(d.toBeat(), cheap), false);
        }
        Protocol.LegalAdd add = (Protocol.LegalAdd) legal;
        List<String> cards = Moves.addable(add, 1, cheap);
        boolean cheapEnough = !cards.isEmpty() && !cards.get(0).endsWith(r.observation().trumpSuit());
        return cheapEnough ? Protocol.add(r.id(), cards) : Protocol.pass(r.id());
    }
}
