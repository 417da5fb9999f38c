//! `durak merge DIR... --out DIR`: the shards of a tournament (`durak tournament --shard I/N`)
//! put together into one directory, as one machine would have recorded it
//! (`durak_tournaments::merge` has the checks).

use super::{note, print_standings};
use crate::CmdResult;
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args)]
pub struct MergeArgs {
    /// The shard directories (each made by `durak tournament --shard I/N`, finished), every
    /// shard of one tournament once.
    #[arg(required = true)]
    dirs: Vec<PathBuf>,
    /// The merged tournament directory (new or empty).
    #[arg(long)]
    out: PathBuf,
    /// Print the standings as JSON.
    #[arg(long, conflicts_with = "csv")]
    json: bool,
    /// Print the standings as CSV (one row per bot).
    #[arg(long)]
    csv: bool,
    /// No notes; only the standings.
    #[arg(short, long)]
    quiet: bool,
}

pub fn run(args: MergeArgs) -> CmdResult {
    let (dir, t, settings, merged) = durak_tournaments::merge::merge(&args.dirs, &args.out)?;
    if let Some(first) = &merged.first_missing {
        eprintln!(
            "warning: {} replay{} named by the shards' results {} missing (the first: {}): \
             the merged directory lacks {} too",
            merged.missing_replays,
            if merged.missing_replays == 1 { "" } else { "s" },
            if merged.missing_replays == 1 {
                "is"
            } else {
                "are"
            },
            first.display(),
            if merged.missing_replays == 1 {
                "it"
            } else {
                "them"
            }
        );
    }
    note(
        args.quiet,
        &format!(
            "merged {} shards: {} games in {} ({} replays linked, {} copied)",
            merged.shards,
            merged.games,
            dir.path.display(),
            merged.linked,
            merged.copied
        ),
    );
    let name = settings.name.as_deref().unwrap_or("tournament");
    print_standings(name, &dir.standings(&t)?, args.json, args.csv);
    Ok(ExitCode::SUCCESS)
}
