//! `durak check-bot` and `durak submit` (issue 7).

use crate::CmdResult;
use clap::Args;

#[derive(Args)]
pub struct CheckBotArgs {}

#[derive(Args)]
pub struct SubmitArgs {}

pub fn check_bot(_args: CheckBotArgs) -> CmdResult {
    Err("durak check-bot is not built yet".into())
}

pub fn submit(_args: SubmitArgs) -> CmdResult {
    Err("durak submit is not built yet".into())
}
