// The Durak protocol v1 messages as TypeScript types (docs/PROTOCOL.md, schemas/). The test
// suite (tests/starter_kits.rs) checks them against every example of docs/PROTOCOL.md, which
// the schemas accept, against the lines the referee really sends in whole games, and against
// every field the schemas name.

export type Rank = "6" | "7" | "8" | "9" | "T" | "J" | "Q" | "K" | "A";
export type Suit = "C" | "D" | "H" | "S";
/** Rank then suit: "TS" is the ten of spades (C-1). */
export type Card = `${Rank}${Suit}`;
export type Seat = number;
export type Variant = "prostoy" | "podkidnoy";
export type FaultKind =
  | "timeout"
  | "crash"
  | "memory"
  | "closed"
  | "malformed"
  | "schema"
  | "illegal"
  | "line_too_long"
  | "start_failed"
  | "forfeit";

// ----- the referee's messages --------------------------------------------------------------

export interface Limits {
  startup_ms: number;
  move_ms: number;
  bank_ms: number;
  max_line_bytes: number;
}

export interface Hello {
  type: "hello";
  protocol: 1;
  variant: Variant;
  players: number;
  seat: Seat;
  games: number;
  limits: Limits;
}

export interface GameStart {
  type: "game_start";
  game: number;
  variant: Variant;
  players: number;
  seat: Seat;
  dealer: Seat;
  hand_size: number;
  first_game: boolean;
}

/** The payload of an event, by `kind` (docs/PROTOCOL.md, "event"). */
export type GameEvent =
  | { kind: "dealt"; dealer: Seat; trump_card: Card; hand_size: number; stock: number }
  | { kind: "dealt_hand"; seat: Seat; cards: Card[] }
  | { kind: "first_attacker"; seat: Seat; shown_trump: Card | null }
  | { kind: "turn_started"; attacker: Seat; defender: Seat; limit: number | null }
  | { kind: "exchanged"; seat: Seat; six: Card; trump_card: Card }
  | { kind: "attacked"; seat: Seat; cards: Card[] }
  | { kind: "defended"; seat: Seat; pairs: [Card, Card][] }
  | { kind: "takes"; seat: Seat }
  | { kind: "added"; seat: Seat; cards: Card[] }
  | { kind: "passed"; seat: Seat }
  | { kind: "picked_up"; seat: Seat; cards: Card[] }
  | { kind: "discarded"; cards: Card[] }
  | { kind: "drew"; seat: Seat; count: number; trump_card: Card | null }
  | { kind: "drew_cards"; seat: Seat; cards: Card[] }
  | { kind: "exited"; seat: Seat }
  | { kind: "game_over"; loser: Seat | null };

export interface EventMsg {
  type: "event";
  game: number;
  event: GameEvent;
}

export interface TableCard {
  attack: Card;
  /** What beat it; null while unbeaten. */
  defence: Card | null;
}

/** Everything your seat may know now (I-1, I-2). */
export interface Observation {
  seat: Seat;
  variant: Variant;
  players: number;
  dealer: Seat;
  hand: Card[];
  hand_counts: number[];
  known: Card[][];
  active: boolean[];
  trump_suit: Suit;
  trump_card: Card;
  trump_card_in_stock: boolean;
  stock: number;
  discard: Card[];
  table: TableCard[];
  attacker: Seat;
  defender: Seat;
  /** Podkidnoy's L (K-3); null in prostoy. */
  limit: number | null;
  taking: boolean;
}

/** The trump-six exchange on offer (P-4). */
export interface Exchange {
  six: Card;
  trump_card: Card;
}

export interface ToBeat {
  attack: Card;
  beaters: Card[];
}

export interface LegalAttack {
  hand: Card[];
  sizes: number[];
  same_rank: boolean;
  exchange: Exchange | null;
}

export interface LegalDefend {
  to_beat: ToBeat[];
  to_beat_after_exchange?: ToBeat[] | null;
  exchange: Exchange | null;
  must_cover_all: boolean;
  can_cover: boolean;
  can_take: boolean;
}

export interface LegalAdd {
  addable: Card[];
  room: number;
  after_take: boolean;
}

interface RequestBase {
  type: "request";
  /** Chosen by the referee: copy it into your answer, never compute it. */
  id: number;
  game: number;
  time: { move_ms: number; bank_ms: number };
  observation: Observation;
}

export type Request =
  | (RequestBase & { decision: "attack"; legal: LegalAttack })
  | (RequestBase & { decision: "defend"; legal: LegalDefend })
  | (RequestBase & { decision: "add"; legal: LegalAdd });

export interface ErrorMsg {
  type: "error";
  id: number | null;
  fault: FaultKind;
  rule: string | null;
  pointer: string | null;
  message: string;
}

export interface Fault {
  seat: Seat;
  kind: FaultKind;
  detail: string;
}

export interface GameEnd {
  type: "game_end";
  game: number;
  loser: Seat | null;
  draw: boolean;
  faults: Fault[];
}

export interface MatchEnd {
  type: "match_end";
  games: number;
  losses: number[];
  draws: number;
}

/** Every message the referee sends. */
export type ToBot = Hello | GameStart | EventMsg | Request | ErrorMsg | GameEnd | MatchEnd;

// ----- your messages -------------------------------------------------------------------------

export interface BotHello {
  type: "hello";
  protocol: 1;
  /** 1 to 64 characters. */
  name: string;
  /** 1 to 32 characters. */
  version: string;
}

interface AnswerBase {
  type: "answer";
  id: number;
}

export type Answer =
  | (AnswerBase & { action: "attack"; cards: Card[]; exchange?: boolean })
  | (AnswerBase & { action: "defend"; pairs: [Card, Card][]; exchange?: boolean })
  | (AnswerBase & { action: "take" })
  | (AnswerBase & { action: "add"; cards: Card[] })
  | (AnswerBase & { action: "pass" });

/** Every message a bot sends. */
export type FromBot = BotHello | Answer;
