//! The built-in bots as a program of their own: `durak-bot bot NAME` plays as `durak bot NAME`
//! does (`builtin:NAME`), without the rest of the `durak` binary. The referee's tests
//! (`referee/tests/`) start it for their built-in seats and hand it to their scripted bots as
//! `$DURAK`, so they need neither the `durak` binary nor its build (cargo builds a package's
//! binaries for its integration tests, `CARGO_BIN_EXE_durak-bot`).

use durak_referee::process::BUILTINS;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let name = match args.as_slice() {
        [bot, name] if bot == "bot" && BUILTINS.contains(&name.as_str()) => name,
        _ => {
            eprintln!(
                "usage: durak-bot bot NAME, where NAME is one of {} (got {args:?})",
                BUILTINS.join(", ")
            );
            return ExitCode::from(2);
        }
    };
    match durak_referee::builtin::run_builtin(name) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("durak-bot: stdin or stdout failed: {e}");
            ExitCode::FAILURE
        }
    }
}
