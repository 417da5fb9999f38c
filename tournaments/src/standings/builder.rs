//! One pass over result lines, in any order, into aggregates whose size does not grow with the
//! number of games: per bot (games, losses, draws, faults, disqualification), per table
//! composition (the counts the fit needs, and moments over its deals), and, in the duplicate and
//! gauntlet formats, 4 bytes per deal and composition for the rotations of a deal not all seen
//! yet (results are not in id order after a resume or a second pass).

use super::Standings;
use crate::config::{Format, Tournament};
use crate::line::ResultLine;
use crate::stats::fit::{Clusters, Group};
use crate::stats::pair::{DealOutcomes, PairSums};
use std::collections::{BTreeMap, HashMap};

/// The largest table (K-1); a deal's partial state packs 3-bit counters for 6 seats.
const MAX_SEATS: usize = 6;

/// Reasons for voided attempts kept in the standings (the builder's memory stays bounded).
pub const MAX_VOID_NOTES: usize = 20;

/// Builds [`Standings`] from result lines fed one at a time ([`Standings::builder`]).
#[derive(Clone, Debug)]
pub struct StandingsBuilder {
    pub(super) t: Tournament,
    index: HashMap<String, usize>,
    pub(super) lines: u64,
    /// Games given up as void (they count for nobody), attempts voided and played again, and
    /// the first [`MAX_VOID_NOTES`] reasons.
    pub(super) void: u64,
    pub(super) attempts_voided: u64,
    pub(super) void_notes: Vec<String>,
    pub(super) bots: Vec<BotCounts>,
    combo_index: HashMap<Vec<usize>, usize>,
    pub(super) combos: Vec<Combo>,
    /// Whether games of one deal are played at every rotation (duplicate, gauntlet).
    pub(super) deals: bool,
    /// The SPRT of a gauntlet run with one ([`crate::sprt`]).
    pub(super) sprt: Option<crate::sprt::SprtTracker>,
}

#[derive(Clone, Debug, Default)]
pub(super) struct BotCounts {
    pub games: u64,
    pub losses: u64,
    pub draws: u64,
    pub faults: BTreeMap<String, u64>,
    /// The first game (by id) after which the bot was disqualified.
    pub disqualified_after: Option<u64>,
}

/// The games of one set of bots (sorted), whatever their seats.
#[derive(Clone, Debug)]
pub(super) struct Combo {
    pub members: Vec<usize>,
    pub games: u64,
    /// Games nobody played.
    pub void: u64,
    /// Draws among the others.
    pub draws: u64,
    /// Per member: times it was the durak.
    pub durak: Vec<u64>,
    /// Deals folded into the moments.
    pub clusters: u64,
    /// `Σ y yᵀ` over deals, `y = (durak count per member, draws, games that count)`.
    pub outer: Vec<u64>,
    /// Per deal: the rotations seen so far, packed (see [`Partial`]); empty without deals.
    partial: Vec<u32>,
    /// Two seats: the deals from the first member's side.
    pub outcomes: DealOutcomes,
}

/// A deal's games so far, packed in a `u32`: seen (3 bits), nobody played (3), draws (3), then
/// the durak count of each member (3 bits each, up to 6 members).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Partial {
    seen: u32,
    void: u32,
    draws: u32,
    durak: [u32; MAX_SEATS],
}

impl Partial {
    fn pack(&self) -> u32 {
        let mut v = self.seen | self.void << 3 | self.draws << 6;
        for (i, d) in self.durak.iter().enumerate() {
            v |= d << (9 + 3 * i);
        }
        v
    }
    fn unpack(v: u32) -> Partial {
        let mut durak = [0; MAX_SEATS];
        for (i, d) in durak.iter_mut().enumerate() {
            *d = (v >> (9 + 3 * i)) & 7;
        }
        Partial {
            seen: v & 7,
            void: (v >> 3) & 7,
            draws: (v >> 6) & 7,
            durak,
        }
    }
}

/// The outcome of one game at a combination: the durak's position among the members, a draw,
/// or nobody played.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Outcome {
    Durak(usize),
    Draw,
    Void,
}

impl Combo {
    fn new(members: Vec<usize>, deals: u32, with_deals: bool) -> Combo {
        let k = members.len();
        Combo {
            durak: vec![0; k],
            outer: vec![0; (k + 2) * (k + 2)],
            partial: if with_deals {
                vec![0; deals as usize]
            } else {
                Vec::new()
            },
            members,
            games: 0,
            void: 0,
            draws: 0,
            clusters: 0,
            outcomes: DealOutcomes::default(),
        }
    }

    fn add(&mut self, outcome: Outcome, deal: Option<u32>) {
        self.games += 1;
        let mut one = Partial {
            seen: 1,
            ..Partial::default()
        };
        match outcome {
            Outcome::Durak(i) => {
                self.durak[i] += 1;
                one.durak[i] = 1;
            }
            Outcome::Draw => {
                self.draws += 1;
                one.draws = 1;
            }
            Outcome::Void => {
                self.void += 1;
                one.void = 1;
            }
        }
        let k = self.members.len();
        let slot = match deal {
            Some(d) if (d as usize) < self.partial.len() && k <= MAX_SEATS => Some(d as usize),
            // No deals (or a deal out of range): each game is a deal of its own.
            _ => None,
        };
        let Some(slot) = slot else {
            self.fold(&one);
            return;
        };
        let mut p = Partial::unpack(self.partial[slot]);
        p.seen += one.seen;
        p.void += one.void;
        p.draws += one.draws;
        for i in 0..k {
            p.durak[i] += one.durak[i];
        }
        if p.seen as usize >= k {
            self.fold(&p);
            self.partial[slot] = 0;
        } else {
            self.partial[slot] = p.pack();
        }
    }

    /// Add a deal's games to the moments.
    fn fold(&mut self, p: &Partial) {
        let k = self.members.len();
        let mut y: Vec<u64> = p.durak[..k.min(MAX_SEATS)]
            .iter()
            .map(|&d| d as u64)
            .collect();
        y.resize(k, 0);
        y.push(p.draws as u64);
        y.push((p.seen - p.void) as u64);
        for a in 0..k + 2 {
            for b in 0..k + 2 {
                self.outer[a * (k + 2) + b] += y[a] * y[b];
            }
        }
        self.clusters += 1;
        if k == 2 {
            self.outcomes
                .add(p.durak[0], p.durak[1], p.draws, p.seen - p.void);
        }
    }

    /// Fold the deals not seen at every rotation (a partial tournament).
    fn flush(&mut self) {
        for i in 0..self.partial.len() {
            if self.partial[i] != 0 {
                let p = Partial::unpack(self.partial[i]);
                self.fold(&p);
                self.partial[i] = 0;
            }
        }
    }

    /// The fit's view: games that count, each member's share of the losses, the deals.
    pub fn group(&self, fitted: &[Option<usize>], with_deals: bool) -> Group {
        let k = self.members.len() as f64;
        Group {
            members: self.members.iter().map(|&b| fitted[b].unwrap()).collect(),
            games: (self.games - self.void) as f64,
            losses: self
                .durak
                .iter()
                .map(|&d| d as f64 + self.draws as f64 / k)
                .collect(),
            clusters: with_deals.then(|| Clusters {
                count: self.clusters,
                outer: self.outer.iter().map(|&x| x as f64).collect(),
            }),
        }
    }

    fn position(&self, bot: usize) -> Option<usize> {
        self.members.iter().position(|&m| m == bot)
    }

    /// `uᵀ (Σ y yᵀ) v`.
    fn moment(&self, u: &[f64], v: &[f64]) -> f64 {
        let n = self.members.len() + 2;
        self.outer
            .chunks(n)
            .zip(u)
            .map(|(row, ua)| ua * row.iter().zip(v).map(|(&o, vb)| o as f64 * vb).sum::<f64>())
            .sum()
    }

    /// Bot `i` against bot `j` (both members) over this combination's deals.
    pub fn pair_sums(&self, i: usize, j: usize) -> Option<PairSums> {
        let (pi, pj) = (self.position(i)?, self.position(j)?);
        let n = self.members.len() + 2;
        let draws = n - 2;
        let mut h = vec![0.0; n];
        h[pj] = 2.0;
        h[draws] = 1.0;
        let mut c = vec![0.0; n];
        c[pi] = 1.0;
        c[pj] = 1.0;
        c[draws] = 1.0;
        let sum = |u: &[f64]| -> f64 {
            // Σ y = the counts themselves.
            u[pi] * self.durak[pi] as f64
                + u[pj] * self.durak[pj] as f64
                + u[draws] * self.draws as f64
        };
        Some(PairSums {
            units: self.clusters,
            h: sum(&h),
            n: sum(&c),
            hh: self.moment(&h, &h),
            hn: self.moment(&h, &c),
            nn: self.moment(&c, &c),
        })
    }
}

impl StandingsBuilder {
    pub(super) fn new(t: &Tournament) -> StandingsBuilder {
        StandingsBuilder {
            index: t
                .bots
                .iter()
                .enumerate()
                .map(|(i, b)| (b.name.clone(), i))
                .collect(),
            lines: 0,
            void: 0,
            attempts_voided: 0,
            void_notes: Vec::new(),
            bots: vec![BotCounts::default(); t.bots.len()],
            combo_index: HashMap::new(),
            combos: Vec::new(),
            deals: matches!(t.format, Format::Duplicate | Format::Gauntlet),
            sprt: t
                .sprt
                .and_then(|p| crate::sprt::SprtTracker::new(t, p).ok()),
            t: t.clone(),
        }
    }

    /// Count one finished game. Lines may come in any order; each game once.
    pub fn add(&mut self, l: &ResultLine) {
        self.lines += 1;
        self.attempts_voided += l.voided.len() as u64;
        for why in &l.voided {
            if self.void_notes.len() < MAX_VOID_NOTES {
                self.void_notes.push(format!("game {}: {why}", l.id));
            }
        }
        if l.void {
            // Given up (a bot starved by the machine each time): it counts for nobody.
            self.void += 1;
            return;
        }
        if let Some(s) = self.sprt.as_mut() {
            s.add(l);
        }
        let seats: Vec<Option<usize>> =
            l.seats.iter().map(|s| self.index.get(s).copied()).collect();
        let nobody_played =
            durak_protocol::nobody_played(seats.len(), l.faults.iter().map(|f| f.seat));
        for (seat, b) in seats.iter().enumerate() {
            let Some(b) = *b else { continue };
            let c = &mut self.bots[b];
            c.games += 1;
            if l.draw {
                c.draws += 1;
            }
            if l.loser == Some(seat) {
                c.losses += 1;
            }
        }
        for f in &l.faults {
            if let Some(b) = seats.get(f.seat).copied().flatten() {
                *self.bots[b]
                    .faults
                    .entry(f.kind.name().to_string())
                    .or_default() += 1;
            }
        }
        for name in &l.disqualified {
            if let Some(&b) = self.index.get(name) {
                let d = &mut self.bots[b].disqualified_after;
                *d = Some(d.map_or(l.id, |x| x.min(l.id)));
            }
        }
        // The combination: every seat a known bot, each once.
        let Some(mut members) = seats.iter().copied().collect::<Option<Vec<usize>>>() else {
            return;
        };
        members.sort_unstable();
        if members.len() < 2 || members.windows(2).any(|w| w[0] == w[1]) {
            return;
        }
        let outcome = match l.loser {
            _ if nobody_played => Outcome::Void,
            Some(seat) if seat < seats.len() => {
                let b = seats[seat].unwrap();
                Outcome::Durak(members.iter().position(|&m| m == b).unwrap())
            }
            _ => Outcome::Draw,
        };
        let next = self.combos.len();
        let i = *self.combo_index.entry(members.clone()).or_insert(next);
        if i == next {
            self.combos
                .push(Combo::new(members, self.t.games, self.deals));
        }
        self.combos[i].add(outcome, l.deal);
    }

    /// Bytes the aggregates hold (beyond the tournament's own description): it grows with the
    /// sets of bots met and the deals per table, never with the number of games.
    pub fn footprint(&self) -> usize {
        let per_bot: usize = self
            .bots
            .iter()
            .map(|b| {
                std::mem::size_of::<BotCounts>()
                    + b.faults.keys().map(|k| k.len() + 16).sum::<usize>()
            })
            .sum();
        let per_combo: usize = self
            .combos
            .iter()
            .map(|c| {
                std::mem::size_of::<Combo>()
                    + 8 * (c.members.len() + c.durak.len() + c.outer.len())
                    + 4 * c.partial.len()
            })
            .sum();
        per_bot + per_combo + self.combo_index.len() * (24 + 8 * self.t.table_size + 8)
    }

    /// The standings of the lines added.
    pub fn finish(mut self) -> Standings {
        for c in &mut self.combos {
            c.flush();
        }
        // The same aggregates whatever order the lines came in: combinations in sorted order.
        self.combos.sort_by(|a, b| a.members.cmp(&b.members));
        super::assemble(self)
    }
}

/// Games in the tournament's schedule (as [`Schedule`](crate::schedule::Schedule) makes it,
/// without building it): every k-combination of bots (gauntlet: those with the challenger) at
/// each of its k rotations, `games` games each.
pub fn scheduled_games(t: &Tournament) -> usize {
    let n = t.bots.len();
    let k = t.table_size;
    let combos = match t.format {
        Format::Gauntlet => {
            let has = t
                .challenger
                .as_deref()
                .is_some_and(|c| t.bot_index(c).is_some());
            if has && k >= 1 {
                binomial(n - 1, k - 1)
            } else {
                0
            }
        }
        _ => binomial(n, k),
    };
    combos * k * t.games as usize
}

fn binomial(n: usize, k: usize) -> usize {
    if k > n || k == 0 {
        return 0;
    }
    (0..k).fold(1usize, |acc, i| acc * (n - i) / (i + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partial_deals_pack_and_unpack() {
        let p = Partial {
            seen: 5,
            void: 1,
            draws: 2,
            durak: [1, 0, 2, 0, 0, 1],
        };
        assert_eq!(Partial::unpack(p.pack()), p);
        assert_eq!(Partial::unpack(0), Partial::default());
        let full = Partial {
            seen: 6,
            void: 6,
            draws: 6,
            durak: [6; MAX_SEATS],
        };
        assert_eq!(Partial::unpack(full.pack()), full);
    }

    #[test]
    fn binomials() {
        assert_eq!(binomial(5, 2), 10);
        assert_eq!(binomial(6, 6), 1);
        assert_eq!(binomial(3, 4), 0);
        assert_eq!(binomial(20, 6), 38760);
    }
}
