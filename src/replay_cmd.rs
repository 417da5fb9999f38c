//! `durak replay` (issue 5).

use crate::CmdResult;
use clap::Args;

#[derive(Args)]
pub struct ReplayArgs {}

pub fn run(_args: ReplayArgs) -> CmdResult {
    Err("durak replay is not built yet".into())
}
