//! `durak tournament` and `durak standings` (issue 4).

use crate::CmdResult;
use clap::Args;

#[derive(Args)]
pub struct TournamentArgs {}

#[derive(Args)]
pub struct StandingsArgs {}

pub fn run(_args: TournamentArgs) -> CmdResult {
    Err("durak tournament is not built yet".into())
}

pub fn standings(_args: StandingsArgs) -> CmdResult {
    Err("durak standings is not built yet".into())
}
