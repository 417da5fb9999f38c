// A starter Durak bot in TypeScript (protocol v1): always legal, and plays its cheapest cards
// first. Change decide() to make it play better; legal.ts lists the legal choices.

import type { Answer, BotHello, Card, Request, ToBot } from "./protocol";
import { addable, attacks, beatWhatYouCan, cheapestFirst, fullCover } from "./legal";

function decide(r: Request): Answer {
  const cheap = cheapestFirst(r.observation.trump_suit);
  const base = { type: "answer", id: r.id } as const;
  switch (r.decision) {
    case "attack": {
      // The attack with the cheapest highest card, then the most cards.
      const top = (c: Card[]) => [...c].sort(cheap)[c.length - 1];
      const all = attacks(r.legal.hand, r.legal.sizes, r.legal.same_rank);
      all.sort((a, b) => cheap(top(a), top(b)) || b.length - a.length);
      return { ...base, action: "attack", cards: all[0] };
    }
    case "defend": {
      if (r.legal.must_cover_all) {
        const cover = fullCover(r.legal.to_beat, cheap);
        return cover ? { ...base, action: "defend", pairs: cover } : { ...base, action: "take" };
      }
      return { ...base, action: "defend", pairs: beatWhatYouCan(r.legal.to_beat, cheap) };
    }
    case "add": {
      const cards = addable(r.legal, 1, cheap);
      if (cards.length > 0 && cards[0][1] !== r.observation.trump_suit) {
        return { ...base, action: "add", cards };
      }
      return { ...base, action: "pass" };
    }
  }
}

// One line, flushed at once: process.stdout.write does not hold it back.
function send(msg: BotHello | Answer): void {
  process.stdout.write(JSON.stringify(msg) + "\n");
}

function handle(line: string): void {
  if (line.trim() === "") return;
  const msg = JSON.parse(line) as ToBot;
  switch (msg.type) {
    case "hello":
      send({ type: "hello", protocol: 1, name: "ts-starter", version: "1.0" });
      break;
    case "request":
      send(decide(msg));
      break;
    case "error":
      process.stderr.write(`the referee says: ${msg.message}\n`);
      break;
    case "match_end":
      process.exit(0);
    // Events, game_start, game_end and unknown messages: nothing to do.
  }
}

let buffered = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => {
  buffered += chunk;
  let nl: number;
  while ((nl = buffered.indexOf("\n")) >= 0) {
    const line = buffered.slice(0, nl);
    buffered = buffered.slice(nl + 1);
    handle(line);
  }
});
process.stdin.on("end", () => process.exit(0));
