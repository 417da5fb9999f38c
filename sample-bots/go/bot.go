// A Durak bot in Go (protocol v1, see docs/PROTOCOL.md). Standard library only.
//
// It reads one JSON object per line on stdin and answers on stdout, one line each. It plays a
// random legal move built from each request's "legal" object, the trump-six exchange included
// (P-4). Its random numbers are seeded by each deal (its dealt_hand event), so the same seed
// gives the same games, also in a resumed tournament.
//
// Build and run:  cd sample-bots/go && go build -o /tmp/go-bot .
//
//	durak check-bot /tmp/go-bot
package main

import (
	"bufio"
	"encoding/json"
	"hash/fnv"
	"math/rand"
	"os"
	"strings"
)

type exchange struct {
	Six       string `json:"six"`
	TrumpCard string `json:"trump_card"`
}

type toBeat struct {
	Attack  string   `json:"attack"`
	Beaters []string `json:"beaters"`
}

// The fields of the referee's messages this bot reads; the others are ignored.
type message struct {
	Type     string          `json:"type"`
	ID       json.RawMessage `json:"id"`
	Decision string          `json:"decision"`
	Event    struct {
		Kind string `json:"kind"`
	} `json:"event"`
	Legal struct {
		Hand                []string  `json:"hand"`
		Sizes               []int     `json:"sizes"`
		SameRank            bool      `json:"same_rank"`
		Exchange            *exchange `json:"exchange"`
		ToBeat              []toBeat  `json:"to_beat"`
		ToBeatAfterExchange []toBeat  `json:"to_beat_after_exchange"`
		MustCoverAll        bool      `json:"must_cover_all"`
		Addable             []string  `json:"addable"`
		Room                int       `json:"room"`
	} `json:"legal"`
}

// An answer; empty fields are left out.
type answer struct {
	Type     string          `json:"type"`
	ID       json.RawMessage `json:"id"`
	Action   string          `json:"action"`
	Cards    []string        `json:"cards,omitempty"`
	Pairs    *[][2]string    `json:"pairs,omitempty"`
	Exchange bool            `json:"exchange,omitempty"`
}

var rng = rand.New(rand.NewSource(1))

func contains(sizes []int, k int) bool {
	for _, s := range sizes {
		if s == k {
			return true
		}
	}
	return false
}

func shuffled(cards []string) []string {
	out := append([]string(nil), cards...)
	rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// attack: podkidnoy, 1 to max(sizes) cards of one rank (K-4); prostoy, 1 card, a pair + 1 or
// two pairs + 1, as legal.sizes allows (P-5, P-6), from the hand after the exchange if used.
func attack(m *message) answer {
	l := &m.Legal
	hand, swap := shuffled(l.Hand), l.Exchange != nil && rng.Intn(2) == 0
	if swap { // P-4: the six of trumps out, the trump card in
		for i, c := range hand {
			if c == l.Exchange.Six {
				hand[i] = l.Exchange.TrumpCard
			}
		}
	}
	a := answer{Action: "attack", Exchange: swap}
	if l.SameRank {
		most := 1
		for _, s := range l.Sizes {
			if s > most {
				most = s
			}
		}
		r := hand[0][0]
		for _, c := range hand {
			if c[0] == r && len(a.Cards) < most {
				a.Cards = append(a.Cards, c)
			}
		}
		a.Cards = a.Cards[:1+rng.Intn(len(a.Cards))]
		return a
	}
	// Disjoint pairs in this hand (four of a kind is two pairs, P-5), the rest are singles.
	var pairs [][2]string
	var singles []string
	waiting := map[byte]string{}
	for _, c := range hand {
		if w, ok := waiting[c[0]]; ok {
			pairs = append(pairs, [2]string{w, c})
			delete(waiting, c[0])
		} else {
			waiting[c[0]] = c
		}
	}
	for _, c := range hand {
		if waiting[c[0]] == c {
			singles = append(singles, c)
		}
	}
	want := 0
	for _, p := range []int{2, 1} {
		if contains(l.Sizes, 2*p+1) && len(pairs) >= p && len(hand) > 2*p && rng.Intn(2) == 0 {
			want = p
			break
		}
	}
	for _, p := range pairs[:want] {
		a.Cards = append(a.Cards, p[0], p[1])
	}
	rest := singles
	for _, p := range pairs[want:] {
		rest = append(rest, p[0], p[1])
	}
	a.Cards = append(a.Cards, rest[rng.Intn(len(rest))])
	return a
}

// cover: every attack card of items[i:] with a distinct beater (backtracking), or false.
func cover(items []toBeat, used map[string]bool, pairs *[][2]string) bool {
	if len(items) == 0 {
		return true
	}
	for _, b := range shuffled(items[0].Beaters) {
		if used[b] {
			continue
		}
		used[b] = true
		*pairs = append(*pairs, [2]string{items[0].Attack, b})
		if cover(items[1:], used, pairs) {
			return true
		}
		*pairs = (*pairs)[:len(*pairs)-1]
		used[b] = false
	}
	return false
}

// defend: podkidnoy, cover everything or take (K-7); prostoy, beat a random subset, each
// card with a different beater (P-8).
func defend(m *message) answer {
	l := &m.Legal
	swap := l.Exchange != nil && rng.Intn(2) == 0
	items := l.ToBeat
	if swap {
		items = l.ToBeatAfterExchange
	}
	pairs := [][2]string{}
	if l.MustCoverAll {
		if rng.Intn(4) == 0 || !cover(items, map[string]bool{}, &pairs) {
			return answer{Action: "take"}
		}
		return answer{Action: "defend", Pairs: &pairs}
	}
	used := map[string]bool{}
	for _, t := range items {
		if rng.Intn(3) == 0 {
			continue // left unbeaten: it is picked up (P-9)
		}
		for _, b := range shuffled(t.Beaters) {
			if !used[b] {
				used[b] = true
				pairs = append(pairs, [2]string{t.Attack, b})
				break
			}
		}
	}
	return answer{Action: "defend", Pairs: &pairs, Exchange: swap}
}

// add: 0 (a pass) to legal.room cards of legal.addable (K-3, K-6).
func add(m *message) answer {
	l := &m.Legal
	n := len(l.Addable)
	if l.Room < n {
		n = l.Room
	}
	k := rng.Intn(n + 1)
	if k == 0 {
		return answer{Action: "pass"}
	}
	return answer{Action: "add", Cards: shuffled(l.Addable)[:k]}
}

func main() {
	in := bufio.NewReader(os.Stdin)
	out := bufio.NewWriter(os.Stdout)
	send := func(v interface{}) {
		line, _ := json.Marshal(v)
		out.Write(append(line, '\n'))
		out.Flush() // every line must reach the referee at once
	}
	for {
		line, err := in.ReadString('\n') // a line of any length
		if strings.TrimSpace(line) != "" {
			var m message
			if e := json.Unmarshal([]byte(line), &m); e != nil {
				os.Stderr.WriteString("go-sample: cannot parse a line: " + e.Error() + "\n")
			} else {
				switch {
				case m.Type == "hello":
					send(map[string]interface{}{"type": "hello", "protocol": 1, "name": "go-sample", "version": "1.0"})
				case m.Type == "event" && m.Event.Kind == "dealt_hand":
					h := fnv.New64a() // seeded by the deal: the same seed, the same games
					h.Write([]byte(strings.TrimSpace(line)))
					rng = rand.New(rand.NewSource(int64(h.Sum64())))
				case m.Type == "request":
					var a answer
					switch m.Decision {
					case "attack":
						a = attack(&m)
					case "defend":
						a = defend(&m)
					default:
						a = add(&m)
					}
					a.Type, a.ID = "answer", m.ID
					send(a)
				case m.Type == "match_end":
					return
				}
			}
		}
		if err != nil {
			return // stdin closed
		}
	}
}
