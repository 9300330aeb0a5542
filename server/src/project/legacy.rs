//! Databases migrated before the rental app became a project. Until then the platform's own
//! history (`supabase_migrations.refinery_history`) also held the app's migrations, V30 to V69;
//! their files then moved to the app's project folder (`web/supabase/migrations`), named
//! `20250101<HH><MM>00_<name>.sql` with HH:MM the old number in hours and minutes (V63 →
//! `20250101010300`). Before the platform migrates, those rows move to the CLI's history under
//! those versions, so neither the platform nor the project runs them again and every row and
//! policy they made stays as it is. The project's baseline squashes those versions since, and
//! records itself in their place (`squash`).

use deadpool_postgres::Pool;

use super::ProjectError;

/// The old versions that moved to the app's project.
const MOVED: &[i32] = &[
    30, 31, 32, 33, 34, 35, 36, 37, 38, 40, 41, 42, 43, 44, 45, 46, 47, 48, 50, 51, 53, 56, 63, 64, 65, 66, 67, 68, 69,
];

/// The project version of an old one.
pub fn version_of(old: i32) -> String {
    format!("20250101{:02}{:02}00", old / 60, old % 60)
}

/// Move the app's rows of the platform's history to the CLI's history; returns how many moved.
pub async fn carry_over(pool: &Pool) -> Result<usize, ProjectError> {
    let db = |e: tokio_postgres::Error| ProjectError::Db(format!("carrying the app's history over: {e}"));
    let mut client = pool.get().await.map_err(|e| ProjectError::Db(e.to_string()))?;
    let exists: bool = client
        .query_one("select to_regclass('supabase_migrations.refinery_history') is not null", &[])
        .await
        .map_err(db)?
        .get(0);
    if !exists {
        return Ok(0);
    }
    let tx = client.transaction().await.map_err(db)?;
    let rows = tx
        .query(
            "delete from supabase_migrations.refinery_history where version = any($1) returning version, name",
            &[&MOVED],
        )
        .await
        .map_err(db)?;
    if rows.is_empty() {
        return Ok(0);
    }
    super::migrations::ensure_history(&*tx).await?;
    for row in &rows {
        let (old, name): (i32, String) = (row.get(0), row.get(1));
        tx.execute(
            "insert into supabase_migrations.schema_migrations (version, name, statements) values ($1, $2, '{}') \
             on conflict (version) do nothing",
            &[&version_of(old), &name],
        )
        .await
        .map_err(db)?;
    }
    tx.commit().await.map_err(db)?;
    tracing::info!(
        moved = rows.len(),
        "project: the app's migrations of the platform's history now belong to its project"
    );
    Ok(rows.len())
}

#[cfg(test)]
mod tests {
    #[test]
    fn old_numbers_become_hours_and_minutes_of_the_first_of_january_2025() {
        assert_eq!(super::version_of(30), "20250101003000");
        assert_eq!(super::version_of(63), "20250101010300");
        assert_eq!(super::version_of(69), "20250101010900");
    }
}
