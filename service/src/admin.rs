//! What the organiser keeps of people (issue 24, the organiser's pages): invites (listed,
//! revoked while unused) and accounts (listed with their bots, suspended with a reason and
//! reinstated). A suspended account's tokens and login sessions open nothing
//! (`auth::account_of`), and each says why (`auth::NotAnAccount::Suspended`).

use crate::db::{now_ms, Db};
use rusqlite::params;

/// An invite as the organiser's page lists it (never the token: only its hash is kept).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Invite {
    pub id: i64,
    pub created: i64,
    /// The account it created.
    pub used_by: Option<String>,
    /// When it was revoked (unix ms).
    pub revoked: Option<i64>,
}

/// Every invite, newest first.
pub fn invites(db: &Db) -> Result<Vec<Invite>, crate::db::DbError> {
    db.read(|c| {
        let mut s = c.prepare(
            "SELECT i.id, i.created, a.name, i.revoked FROM invites i LEFT JOIN accounts a ON \
             a.id = i.used_by ORDER BY i.id DESC",
        )?;
        let rows = s.query_map([], |r| {
            Ok(Invite {
                id: r.get(0)?,
                created: r.get(1)?,
                used_by: r.get(2)?,
                revoked: r.get(3)?,
            })
        })?;
        rows.collect()
    })
}

/// Why the organiser's change was not made.
#[derive(Debug, thiserror::Error)]
pub enum AdminError {
    #[error("there is no invite {0}")]
    NoInvite(i64),
    #[error("invite {0} was used already: suspend the account it made instead")]
    InviteUsed(i64),
    #[error("there is no account {0}")]
    NoAccount(i64),
    #[error("the organiser's own account cannot be suspended")]
    Organiser,
    #[error(transparent)]
    Db(#[from] crate::db::DbError),
}

impl AdminError {
    /// Its HTTP status: 404 for none such, 409 for a change that cannot be made to it, 500 for
    /// the database.
    pub fn status(&self) -> u16 {
        match self {
            AdminError::NoInvite(_) | AdminError::NoAccount(_) => 404,
            AdminError::InviteUsed(_) | AdminError::Organiser => 409,
            AdminError::Db(_) => 500,
        }
    }
}

/// Revoke an unused invite: `Err` names why not (none such, used already).
pub fn revoke_invite(db: &Db, id: i64) -> Result<(), AdminError> {
    let n = db.write(|c| {
        c.execute(
            "UPDATE invites SET revoked = COALESCE(revoked, ?2) WHERE id = ?1 AND used_by IS \
             NULL",
            params![id, now_ms()],
        )
    })?;
    if n == 0 {
        let known = invites(db)?.into_iter().any(|i| i.id == id);
        return Err(if known {
            AdminError::InviteUsed(id)
        } else {
            AdminError::NoInvite(id)
        });
    }
    Ok(())
}

/// An account as the organiser's page lists it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct AccountRow {
    pub id: i64,
    pub name: String,
    pub organiser: bool,
    pub created: i64,
    /// The organiser's reason, when suspended.
    pub suspended: Option<String>,
    /// Its bots (not house bots) and their versions in the ladder now.
    pub bots: i64,
    pub active: i64,
}

/// Every account, by name.
pub fn accounts(db: &Db) -> Result<Vec<AccountRow>, crate::db::DbError> {
    db.read(|c| {
        let mut s = c.prepare(
            "SELECT a.id, a.name, a.organiser, a.created, a.suspended, (SELECT count(*) FROM \
             bots b WHERE b.account = a.id AND b.house = 0), (SELECT count(*) FROM versions v \
             JOIN bots b ON b.id = v.bot WHERE b.account = a.id AND b.house = 0 AND v.state = \
             ?1) FROM accounts a ORDER BY a.name",
        )?;
        let rows = s.query_map([crate::domain::VersionState::Active], |r| {
            Ok(AccountRow {
                id: r.get(0)?,
                name: r.get(1)?,
                organiser: r.get::<_, i64>(2)? != 0,
                created: r.get(3)?,
                suspended: r.get(4)?,
                bots: r.get(5)?,
                active: r.get(6)?,
            })
        })?;
        rows.collect()
    })
}

/// Suspend an account (`reason`: why, shown to its author when a token is refused) or, with
/// `None`, reinstate it. The organiser's own account cannot be suspended.
pub fn set_suspended(db: &Db, id: i64, reason: Option<&str>) -> Result<(), AdminError> {
    let n = db.write(|c| {
        c.execute(
            "UPDATE accounts SET suspended = ?2 WHERE id = ?1 AND organiser = 0",
            params![id, reason],
        )
    })?;
    if n == 0 {
        let known = accounts(db)?.into_iter().find(|a| a.id == id);
        return Err(match known {
            Some(_) => AdminError::Organiser,
            None => AdminError::NoAccount(id),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth;

    #[test]
    fn a_revoked_invite_makes_no_account_and_a_used_one_is_not_revoked() {
        let d = tempfile::tempdir().unwrap();
        let db = Db::open(&d.path().join("s.db")).unwrap();
        let a = auth::new_invite(&db).unwrap();
        let b = auth::new_invite(&db).unwrap();
        auth::create_account(&db, "ada", false, Some(&a)).unwrap();
        let list = invites(&db).unwrap();
        let (used, unused) = (list[1].id, list[0].id);
        assert_eq!(list[1].used_by.as_deref(), Some("ada"));
        let e = revoke_invite(&db, used).unwrap_err();
        assert_eq!(e.status(), 409);
        assert!(e.to_string().contains("used already"), "{e}");
        revoke_invite(&db, unused).unwrap();
        assert!(invites(&db).unwrap()[0].revoked.is_some());
        let e = auth::create_account(&db, "bob", false, Some(&b)).unwrap_err();
        assert!(e.to_string().contains("revoked"), "{e}");
        let e = revoke_invite(&db, 99).unwrap_err();
        assert_eq!(
            (e.status(), e.to_string().as_str()),
            (404, "there is no invite 99")
        );
        // The database failing is the server's fault, not a change refused.
        let broken = AdminError::from(crate::db::DbError(rusqlite::Error::InvalidQuery));
        assert_eq!(broken.status(), 500);
    }

    #[test]
    fn a_suspended_accounts_tokens_open_nothing_and_say_why() {
        let d = tempfile::tempdir().unwrap();
        let db = Db::open(&d.path().join("s.db")).unwrap();
        auth::ensure_organiser(&db).unwrap();
        let (ada, token) = auth::create_account(&db, "ada", false, None).unwrap();
        let session = auth::new_session(&db, ada.id).unwrap();
        set_suspended(&db, ada.id, Some("copied a bot")).unwrap();
        for t in [&token, &session] {
            assert_eq!(auth::account_of(&db, t).unwrap(), None, "{t}");
            assert_eq!(
                auth::why_not_an_account(&db, t).unwrap(),
                auth::NotAnAccount::Suspended("copied a bot".into())
            );
        }
        let row = accounts(&db).unwrap().into_iter().find(|a| a.id == ada.id);
        assert_eq!(row.unwrap().suspended.as_deref(), Some("copied a bot"));
        set_suspended(&db, ada.id, None).unwrap();
        assert_eq!(auth::account_of(&db, &token).unwrap(), Some(ada));
        let org = accounts(&db).unwrap().into_iter().find(|a| a.organiser);
        let e = set_suspended(&db, org.unwrap().id, Some("x")).unwrap_err();
        assert!(matches!(e, AdminError::Organiser), "{e:?}");
        assert!(e.to_string().contains("cannot be suspended"), "{e}");
        assert_eq!(set_suspended(&db, 99, None).unwrap_err().status(), 404);
    }
}
