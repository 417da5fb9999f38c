//! Accounts and tokens. A token is 32 random bytes, shown once (as 64 hex digits after a
//! `dk_` prefix) and stored only as its SHA-256: a copy of the database gives nobody a token.
//! Invites are tokens of the same kind that create one account each. Worker tokens (for
//! `durak worker`) are issued by the organiser and kept in a table of their own: a worker token
//! opens the worker routes only, and an account's token none of them.

use crate::db::{now_ms, Db, DbError};
use rusqlite::{params, OptionalExtension};
use sha2::{Digest, Sha256};

/// Who is asking.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, utoipa::ToSchema)]
pub struct Account {
    pub id: i64,
    pub name: String,
    pub organiser: bool,
}

/// A new token: what to give the user once.
pub fn new_token() -> String {
    let mut b = [0u8; 32];
    getrandom::fill(&mut b).expect("the system's random source");
    let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
    format!("dk_{hex}")
}

/// The stored form of a token.
pub fn hash(token: &str) -> String {
    let d = Sha256::digest(token.trim().as_bytes());
    d.iter().map(|x| format!("{x:02x}")).collect()
}

/// An account name: 1 to 32 letters, digits, `-`, `_`, `.`.
pub fn check_name(name: &str) -> Result<(), RegisterError> {
    let n = name.chars().count();
    if n == 0
        || n > 32
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
    {
        return Err(RegisterError::BadName(name.to_string()));
    }
    Ok(())
}

/// How long a login session lasts, in days.
pub const SESSION_DAYS: i64 = 30;

/// A new login session for `account` (what the login cookie holds: `ds_` and 64 hex digits,
/// stored as its SHA-256 like every token).
pub fn new_session(db: &Db, account: i64) -> Result<String, DbError> {
    let token = format!("ds_{}", &new_token()[3..]);
    let now = now_ms();
    db.write(|c| {
        c.execute(
            "INSERT INTO sessions(account, hash, created, expires) VALUES (?1, ?2, ?3, ?4)",
            params![account, hash(&token), now, now + SESSION_DAYS * 86_400_000],
        )
    })?;
    Ok(token)
}

/// End a login session (logging out): its cookie opens nothing any more.
pub fn end_session(db: &Db, token: &str) -> Result<(), crate::db::DbError> {
    db.write(|c| {
        c.execute(
            "UPDATE sessions SET revoked = 1 WHERE hash = ?1",
            [hash(token)],
        )
        .map(|_| ())
    })
}

/// An account from a row of `id, name, organiser`.
fn account_row(r: &rusqlite::Row) -> rusqlite::Result<Account> {
    Ok(Account {
        id: r.get(0)?,
        name: r.get(1)?,
        organiser: r.get::<_, i64>(2)? != 0,
    })
}

/// The account a token belongs to (not revoked, the account not suspended): an API token, or a
/// login session's (not ended, not expired).
pub fn account_of(db: &Db, token: &str) -> Result<Option<Account>, crate::db::DbError> {
    if token.starts_with("ds_") {
        let h = hash(token);
        return db.read(|c| {
            c.query_row(
                "SELECT a.id, a.name, a.organiser FROM sessions s JOIN accounts a ON a.id = \
                 s.account WHERE s.hash = ?1 AND s.revoked = 0 AND s.expires > ?2 AND \
                 a.suspended IS NULL",
                params![h, now_ms()],
                account_row,
            )
            .optional()
        });
    }
    let h = hash(token);
    db.read(|c| {
        c.query_row(
            "SELECT a.id, a.name, a.organiser FROM tokens t JOIN accounts a ON a.id = t.account \
             WHERE t.hash = ?1 AND t.revoked = 0 AND a.suspended IS NULL",
            [h],
            account_row,
        )
        .optional()
    })
}

/// Why an account was not created: the request's fault (each with its fix), or the
/// database's (the server's fault: 500, not 400).
#[derive(Debug, thiserror::Error)]
pub enum RegisterError {
    #[error(
        "name {0:?}: an account name has 1 to 32 letters, digits, '-', '_' or '.'; fix: choose \
         one such as \"ada\""
    )]
    BadName(String),
    #[error(
        "the invite token was revoked by the organiser; fix: ask the organiser for a new invite"
    )]
    InviteRevoked,
    #[error(
        "the invite token is not one this server issued; fix: ask the organiser for an invite"
    )]
    InviteUnknown,
    #[error("the invite token was used already; fix: ask the organiser for a new invite")]
    InviteUsed,
    #[error("name {0:?}: an account has this name already; fix: choose another name")]
    NameTaken(String),
    #[error(transparent)]
    Database(#[from] crate::db::DbError),
}

impl RegisterError {
    /// Its HTTP status: 409 for a name or invite taken, 400 for another bad request, 500 for
    /// the database.
    pub fn status(&self) -> u16 {
        match self {
            RegisterError::NameTaken(_) | RegisterError::InviteUsed => 409,
            RegisterError::Database(_) => 500,
            _ => 400,
        }
    }
}

/// Create an account with a first token; `Err` says why not.
pub fn create_account(
    db: &Db,
    name: &str,
    organiser: bool,
    invite: Option<&str>,
) -> Result<(Account, String), RegisterError> {
    check_name(name)?;
    let token = new_token();
    let th = hash(&token);
    let ih = invite.map(hash);
    let now = now_ms();
    let r = db
        .write(|c| {
            let tx = c.transaction()?;
            if let Some(ih) = &ih {
                let used: Option<(Option<i64>, Option<i64>)> = tx
                    .query_row(
                        "SELECT used_by, revoked FROM invites WHERE hash = ?1",
                        [ih],
                        |r| Ok((r.get(0)?, r.get(1)?)),
                    )
                    .optional()?;
                match used {
                    Some((None, Some(_))) => return Ok(Err(RegisterError::InviteRevoked)),
                    None => return Ok(Err(RegisterError::InviteUnknown)),
                    Some((Some(_), _)) => return Ok(Err(RegisterError::InviteUsed)),
                    Some((None, None)) => {}
                }
            }
            let taken: bool = tx
                .query_row("SELECT 1 FROM accounts WHERE name = ?1", [name], |_| {
                    Ok(true)
                })
                .optional()?
                .unwrap_or(false);
            if taken {
                return Ok(Err(RegisterError::NameTaken(name.to_string())));
            }
            tx.execute(
                "INSERT INTO accounts(name, organiser, created) VALUES (?1, ?2, ?3)",
                params![name, organiser as i64, now],
            )?;
            let id = tx.last_insert_rowid();
            tx.execute(
                "INSERT INTO tokens(account, hash, label, created) VALUES (?1, ?2, 'first', ?3)",
                params![id, th, now],
            )?;
            if let Some(ih) = &ih {
                tx.execute(
                    "UPDATE invites SET used_by = ?1 WHERE hash = ?2",
                    params![id, ih],
                )?;
            }
            tx.commit()?;
            Ok(Ok(Account {
                id,
                name: name.to_string(),
                organiser,
            }))
        })
        .map_err(RegisterError::Database)??;
    Ok((r, token))
}

/// A new token for an account.
pub fn add_token(db: &Db, account: i64, label: &str) -> Result<(i64, String), DbError> {
    let token = new_token();
    let h = hash(&token);
    let id = db.write(|c| {
        c.execute(
            "INSERT INTO tokens(account, hash, label, created) VALUES (?1, ?2, ?3, ?4)",
            params![account, h, label, now_ms()],
        )?;
        Ok(c.last_insert_rowid())
    })?;
    Ok((id, token))
}

/// Revoke one of an account's tokens; `false` when it has no such token. Its `revoked`
/// column holds when (unix ms; `1` in rows revoked before that was kept), so that the token
/// can be told so.
pub fn revoke_token(db: &Db, account: i64, id: i64) -> Result<bool, crate::db::DbError> {
    db.write(|c| {
        c.execute(
            "UPDATE tokens SET revoked = CASE revoked WHEN 0 THEN ?3 ELSE revoked END WHERE id \
             = ?1 AND account = ?2",
            params![id, account, now_ms()],
        )
        .map(|n| n > 0)
    })
}

/// What the server knows of a token that opens no account (for the words of a refusal).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NotAnAccount {
    /// An account's API token, revoked at this time (unix ms; `None`: before times were kept).
    Revoked(Option<i64>),
    /// A login session's token (the cookie's) that ended: logged out, or expired.
    SessionEnded,
    /// A worker token: it opens the worker routes only.
    Worker,
    /// A token of an account the organiser suspended (the reason).
    Suspended(String),
    /// Not a token of this server.
    Unknown,
}

/// Why `token` opens no account (call it after [`account_of`] gave `None`).
pub fn why_not_an_account(db: &Db, token: &str) -> Result<NotAnAccount, crate::db::DbError> {
    let h = hash(token);
    db.read(|c| {
        let suspended: Option<String> = c
            .query_row(
                "SELECT a.suspended FROM accounts a WHERE a.suspended IS NOT NULL AND a.id IN \
                 (SELECT account FROM tokens WHERE hash = ?1 AND revoked = 0 UNION SELECT \
                 account FROM sessions WHERE hash = ?1 AND revoked = 0)",
                [&h],
                |r| r.get(0),
            )
            .optional()?;
        if let Some(reason) = suspended {
            return Ok(NotAnAccount::Suspended(reason));
        }
        if token.starts_with("ds_") {
            let known = c
                .query_row("SELECT 1 FROM sessions WHERE hash = ?1", [&h], |_| Ok(()))
                .optional()?;
            return Ok(match known {
                Some(()) => NotAnAccount::SessionEnded,
                None => NotAnAccount::Unknown,
            });
        }
        let revoked: Option<i64> = c
            .query_row("SELECT revoked FROM tokens WHERE hash = ?1", [&h], |r| {
                r.get(0)
            })
            .optional()?;
        if let Some(at) = revoked.filter(|&r| r != 0) {
            return Ok(NotAnAccount::Revoked((at > 1).then_some(at)));
        }
        let worker = c
            .query_row("SELECT 1 FROM worker_tokens WHERE hash = ?1", [&h], |_| {
                Ok(())
            })
            .optional()?;
        Ok(match worker {
            Some(()) => NotAnAccount::Worker,
            None => NotAnAccount::Unknown,
        })
    })
}

/// A new invite token.
pub fn new_invite(db: &Db) -> Result<String, DbError> {
    let token = new_token();
    let h = hash(&token);
    db.write(|c| {
        c.execute(
            "INSERT INTO invites(hash, created) VALUES (?1, ?2)",
            params![h, now_ms()],
        )
        .map(|_| ())
    })?;
    Ok(token)
}

/// A worker token, as the server knows it (never the token itself: only its hash is kept).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, utoipa::ToSchema)]
pub struct WorkerToken {
    pub id: i64,
    pub label: String,
    pub created: i64,
    pub revoked: bool,
    /// When a worker last used it (unix ms).
    pub last_seen: Option<i64>,
}

/// A new worker token (the organiser's): (its id, the token to give the worker once).
pub fn new_worker_token(db: &Db, label: &str) -> Result<(i64, String), DbError> {
    let token = new_token();
    let h = hash(&token);
    let id = db.write(|c| {
        c.execute(
            "INSERT INTO worker_tokens(hash, label, created) VALUES (?1, ?2, ?3)",
            params![h, label, now_ms()],
        )?;
        Ok(c.last_insert_rowid())
    })?;
    Ok((id, token))
}

/// The worker token `token` is (not revoked).
pub fn worker_of(db: &Db, token: &str) -> Result<Option<WorkerToken>, crate::db::DbError> {
    let h = hash(token);
    db.read(|c| {
        c.prepare_cached(
            "SELECT id, label, created, revoked, last_seen FROM worker_tokens WHERE hash = ?1 \
             AND revoked = 0",
        )?
        .query_row([h], row_to_worker)
        .optional()
    })
}

fn row_to_worker(r: &rusqlite::Row) -> rusqlite::Result<WorkerToken> {
    Ok(WorkerToken {
        id: r.get(0)?,
        label: r.get(1)?,
        created: r.get(2)?,
        revoked: r.get::<_, i64>(3)? != 0,
        last_seen: r.get(4)?,
    })
}

/// Every worker token, by id.
pub fn worker_tokens(db: &Db) -> Result<Vec<WorkerToken>, crate::db::DbError> {
    db.read(|c| {
        let mut s = c.prepare(
            "SELECT id, label, created, revoked, last_seen FROM worker_tokens ORDER BY id",
        )?;
        let rows = s.query_map([], row_to_worker)?;
        rows.collect()
    })
}

/// Revoke a worker token; `false` when there is no such token.
pub fn revoke_worker_token(db: &Db, id: i64) -> Result<bool, crate::db::DbError> {
    db.write(|c| {
        c.execute("UPDATE worker_tokens SET revoked = 1 WHERE id = ?1", [id])
            .map(|n| n > 0)
    })
}

/// A worker token was used now (at most every few seconds is enough: callers decide).
pub fn worker_seen(db: &Db, id: i64) -> Result<(), crate::db::DbError> {
    // Written at most every 10 s (a busy worker makes many requests a second; the lists show
    // dates), with the statement prepared once.
    db.write_relaxed(|c| {
        c.prepare_cached(
            "UPDATE worker_tokens SET last_seen = ?1 WHERE id = ?2 AND (last_seen IS NULL OR \
             last_seen < ?1 - 10000)",
        )?
        .execute(params![now_ms(), id])
        .map(|_| ())
    })
}

/// On first start: the organiser's account and token (returned to be printed), or `None` when
/// one exists.
pub fn ensure_organiser(db: &Db) -> Result<Option<String>, RegisterError> {
    let exists: bool = db.read(|c| {
        c.query_row("SELECT 1 FROM accounts WHERE organiser = 1", [], |_| {
            Ok(true)
        })
        .optional()
        .map(|o| o.unwrap_or(false))
    })?;
    if exists {
        return Ok(None);
    }
    let (_, token) = create_account(db, "organiser", true, None)?;
    Ok(Some(token))
}

/// A new organiser token (`durak organiser-token`): every earlier token and login session of
/// the organiser is revoked, and the new one returned (to be shown once). Makes the organiser's
/// account if there is none yet (a data directory whose first start failed before it).
pub fn reset_organiser(db: &Db) -> Result<String, DbError> {
    let token = new_token();
    let h = hash(&token);
    let now = now_ms();
    db.write(|c| {
        let tx = c.transaction()?;
        let org: Option<i64> = tx
            .query_row(
                "SELECT id FROM accounts WHERE organiser = 1 ORDER BY id LIMIT 1",
                [],
                |r| r.get(0),
            )
            .optional()?;
        let org = match org {
            Some(id) => id,
            None => {
                tx.execute(
                    "INSERT INTO accounts(name, organiser, created) VALUES ('organiser', 1, ?1)",
                    [now],
                )?;
                tx.last_insert_rowid()
            }
        };
        tx.execute(
            "UPDATE tokens SET revoked = ?2 WHERE account = ?1 AND revoked = 0",
            params![org, now],
        )?;
        tx.execute("UPDATE sessions SET revoked = 1 WHERE account = ?1", [org])?;
        tx.execute(
            "INSERT INTO tokens(account, hash, label, created) VALUES (?1, ?2, 'organiser-token', \
             ?3)",
            params![org, h, now],
        )?;
        tx.commit()
    })?;
    Ok(token)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_random_and_stored_hashed() {
        let d = tempfile::tempdir().unwrap();
        let db = Db::open(&d.path().join("s.db")).unwrap();
        let t = ensure_organiser(&db).unwrap().unwrap();
        assert!(t.starts_with("dk_") && t.len() == 67, "{t}");
        assert_eq!(ensure_organiser(&db).unwrap(), None, "one organiser, once");
        let a = account_of(&db, &t).unwrap().unwrap();
        assert!(a.organiser);
        let stored: Vec<String> = db
            .read(|c| {
                let mut s = c.prepare("SELECT hash FROM tokens")?;
                let rows = s.query_map([], |r| r.get(0))?;
                rows.collect()
            })
            .unwrap();
        assert_eq!(stored, vec![hash(&t)]);
        assert!(
            !stored[0].contains(&t[3..]),
            "the token itself is not stored"
        );
        assert_eq!(account_of(&db, "dk_00").unwrap(), None);
    }

    #[test]
    fn a_new_organiser_token_revokes_the_old_ones() {
        let d = tempfile::tempdir().unwrap();
        let db = Db::open(&d.path().join("s.db")).unwrap();
        let first = ensure_organiser(&db).unwrap().unwrap();
        let session = new_session(&db, account_of(&db, &first).unwrap().unwrap().id).unwrap();
        let second = reset_organiser(&db).unwrap();
        assert_ne!(first, second);
        assert_eq!(
            account_of(&db, &first).unwrap(),
            None,
            "the old token is revoked"
        );
        assert_eq!(
            account_of(&db, &session).unwrap(),
            None,
            "and its sessions end"
        );
        assert!(matches!(
            why_not_an_account(&db, &first).unwrap(),
            NotAnAccount::Revoked(Some(_))
        ));
        let a = account_of(&db, &second).unwrap().unwrap();
        assert!(a.organiser && a.name == "organiser", "{a:?}");
        assert_eq!(ensure_organiser(&db).unwrap(), None, "still one organiser");
        // A database without an organiser (a first start that failed) gets one.
        let db2 = Db::open(&d.path().join("t.db")).unwrap();
        let t = reset_organiser(&db2).unwrap();
        assert!(account_of(&db2, &t).unwrap().unwrap().organiser);
        assert_eq!(ensure_organiser(&db2).unwrap(), None);
    }

    #[test]
    fn invites_create_one_account_each_and_names_are_unique() {
        let d = tempfile::tempdir().unwrap();
        let db = Db::open(&d.path().join("s.db")).unwrap();
        let inv = new_invite(&db).unwrap();
        let (a, t) = create_account(&db, "ada", false, Some(&inv)).unwrap();
        assert_eq!(account_of(&db, &t).unwrap().unwrap(), a);
        let e = create_account(&db, "bob", false, Some(&inv)).unwrap_err();
        assert!(e.to_string().contains("used already"), "{e}");
        assert_eq!(e.status(), 409);
        let e = create_account(&db, "bob", false, Some("dk_nope")).unwrap_err();
        assert!(e.to_string().contains("not one this server issued"), "{e}");
        assert_eq!(e.status(), 400);
        let e = create_account(&db, "ada", false, None).unwrap_err();
        assert!(e.to_string().contains("already"), "{e}");
        assert_eq!(e.status(), 409);
        let e = create_account(&db, "a b", false, None).unwrap_err();
        assert!(e.to_string().contains("fix:"), "{e}");
        assert_eq!(e.status(), 400);
        let (id, t2) = add_token(&db, a.id, "laptop").unwrap();
        assert!(account_of(&db, &t2).unwrap().is_some());
        assert!(revoke_token(&db, a.id, id).unwrap());
        assert_eq!(
            account_of(&db, &t2).unwrap(),
            None,
            "a revoked token opens nothing"
        );
        assert!(!revoke_token(&db, a.id + 100, id).unwrap());
        let at = match why_not_an_account(&db, &t2).unwrap() {
            NotAnAccount::Revoked(Some(at)) => at,
            other => panic!("{other:?}"),
        };
        assert!(at > 1_700_000_000_000, "{at}");
        std::thread::sleep(std::time::Duration::from_millis(5));
        assert!(revoke_token(&db, a.id, id).unwrap(), "revoked again: fine");
        assert_eq!(
            why_not_an_account(&db, &t2).unwrap(),
            NotAnAccount::Revoked(Some(at)),
            "when it was first revoked"
        );
        assert_eq!(
            why_not_an_account(&db, "dk_nope").unwrap(),
            NotAnAccount::Unknown
        );
        let (_, w) = new_worker_token(&db, "rack").unwrap();
        assert_eq!(why_not_an_account(&db, &w).unwrap(), NotAnAccount::Worker);
        let session = new_session(&db, a.id).unwrap();
        end_session(&db, &session).unwrap();
        assert_eq!(
            why_not_an_account(&db, &session).unwrap(),
            NotAnAccount::SessionEnded
        );
    }

    #[test]
    fn worker_tokens_and_account_tokens_open_nothing_of_each_other() {
        let d = tempfile::tempdir().unwrap();
        let db = Db::open(&d.path().join("s.db")).unwrap();
        let org = ensure_organiser(&db).unwrap().unwrap();
        let (id, w) = new_worker_token(&db, "rack 1").unwrap();
        assert_eq!(worker_of(&db, &w).unwrap().unwrap().label, "rack 1");
        assert_eq!(account_of(&db, &w).unwrap(), None, "not an account's token");
        assert_eq!(worker_of(&db, &org).unwrap(), None, "not a worker token");
        let stored: String = db
            .read(|c| c.query_row("SELECT hash FROM worker_tokens", [], |r| r.get(0)))
            .unwrap();
        assert_eq!(stored, hash(&w), "stored hashed");
        assert!(revoke_worker_token(&db, id).unwrap());
        assert_eq!(worker_of(&db, &w).unwrap(), None, "revoked");
        assert!(worker_tokens(&db).unwrap()[0].revoked);
    }

    /// A database failure while registering is the server's fault (500; the status used to be
    /// guessed from the message's words, and this was a 400).
    #[test]
    fn a_database_failure_while_registering_is_a_500() {
        let d = tempfile::tempdir().unwrap();
        let db = Db::open(&d.path().join("s.db")).unwrap();
        db.write(|c| c.execute_batch("DROP TABLE tokens;")).unwrap();
        let e = create_account(&db, "ada", false, None).unwrap_err();
        assert!(matches!(e, RegisterError::Database(_)), "{e:?}");
        assert_eq!(e.status(), 500, "{e}");
    }
}
