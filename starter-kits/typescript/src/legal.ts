// Legal moves from a request's `legal` object (docs/PROTOCOL.md, "Using the legal object"):
// every legal attack, a complete podkidnoy cover, the cards to add. Whatever these return is
// legal; which to choose is your bot's business.

import type { Card, LegalAdd, Suit, ToBeat } from "./protocol";

export const RANKS = "6789TJQKA";

/** A card's rank, 0 (six) to 8 (ace). */
export function rank(card: Card): number {
  return RANKS.indexOf(card[0]);
}

/** Low ranks first, trumps after every non-trump (a comparator for sort). */
export function cheapestFirst(trump: Suit): (a: Card, b: Card) => number {
  const cost = (c: Card) => rank(c) + (c[1] === trump ? 10 : 0);
  return (a, b) => cost(a) - cost(b);
}

/**
 * Every legal attack from `hand` (the hand after the exchange, when you send exchange: true).
 * Podkidnoy (sameRank): one or more cards of one rank, at most max(sizes). Prostoy: 1 card; 3
 * with a pair; 5 with two pairs (P-5), each size only if listed in sizes (P-6).
 */
export function attacks(hand: Card[], sizes: number[], sameRank: boolean): Card[][] {
  const out: Card[][] = [];
  const max = Math.max(1, ...sizes);
  const byRank = new Map<number, Card[]>();
  for (const c of hand) byRank.set(rank(c), [...(byRank.get(rank(c)) ?? []), c]);
  if (sameRank) {
    for (const same of byRank.values()) {
      for (let mask = 1; mask < 1 << same.length; mask++) {
        const pick = same.filter((_, i) => mask & (1 << i));
        if (pick.length <= max) out.push(pick);
      }
    }
    return out;
  }
  for (const c of hand) out.push([c]);
  const pairs: [Card, Card][] = [];
  for (const same of byRank.values())
    for (let a = 0; a < same.length; a++)
      for (let b = a + 1; b < same.length; b++) pairs.push([same[a], same[b]]);
  const seen = new Set<string>();
  const addUnique = (cards: Card[]) => {
    const key = [...cards].sort().join(",");
    if (new Set(cards).size === cards.length && !seen.has(key)) {
      seen.add(key);
      out.push(cards);
    }
  };
  if (sizes.includes(3)) for (const p of pairs) for (const c of hand) addUnique([...p, c]);
  if (sizes.includes(5))
    for (let a = 0; a < pairs.length; a++)
      for (let b = a + 1; b < pairs.length; b++)
        for (const c of hand) addUnique([...pairs[a], ...pairs[b], c]);
  return out;
}

/**
 * A complete cover: every card of `toBeat` beaten by a different card, or null when there is
 * none (then take). Backtracking: a greedy choice can fail (K-7). Beaters are tried in the order
 * of `better`.
 */
export function fullCover(toBeat: ToBeat[], better: (a: Card, b: Card) => number): [Card, Card][] | null {
  const used = new Set<Card>();
  const pairs: [Card, Card][] = [];
  const go = (i: number): boolean => {
    if (i === toBeat.length) return true;
    for (const b of [...toBeat[i].beaters].sort(better)) {
      if (used.has(b)) continue;
      used.add(b);
      pairs.push([toBeat[i].attack, b]);
      if (go(i + 1)) return true;
      pairs.pop();
      used.delete(b);
    }
    return false;
  };
  return go(0) ? pairs : null;
}

/**
 * Prostoy: beat what you can, each attack card with its first free beater in the order of
 * `better`; the rest you pick up (P-8, P-9). Always legal, even empty.
 */
export function beatWhatYouCan(toBeat: ToBeat[], better: (a: Card, b: Card) => number): [Card, Card][] {
  const used = new Set<Card>();
  const pairs: [Card, Card][] = [];
  for (const t of toBeat) {
    const b = [...t.beaters].sort(better).find((c) => !used.has(c));
    if (b !== undefined) {
      used.add(b);
      pairs.push([t.attack, b]);
    }
  }
  return pairs;
}

/** Up to `n` cards to add: from addable, at most room of them (K-3, K-6). */
export function addable(legal: LegalAdd, n: number, better: (a: Card, b: Card) => number): Card[] {
  return [...legal.addable].sort(better).slice(0, Math.max(0, Math.min(n, legal.room)));
}
