//! When something an agent works on counts as live: one rule for every system git-ucg reads
//! (docs/ARCHITECTURE.md, "one rule, shared"). A thing is live while it was touched recently —
//! within six hours while it is active, thirty minutes when it is not — by what the agent
//! writes as it works: ultragoal's state file (docs/formats/ultragoal.md §2.9, whose numbers
//! these are), UltraCode Goal's heartbeat (`run-status.json`'s `updated`).

/// How long an active pursuit or a running run stays live without a touch.
pub const ACTIVE_TTL_SECS: i64 = 6 * 60 * 60;
/// How long an inactive one does.
pub(crate) const INACTIVE_TTL_SECS: i64 = 30 * 60;

/// Whether something touched `idle_secs` ago is live (a touch in the future counts as now).
pub fn is_live(active: bool, idle_secs: i64) -> bool {
    let ttl = if active {
        ACTIVE_TTL_SECS
    } else {
        INACTIVE_TTL_SECS
    };
    idle_secs.max(0) < ttl
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn six_hours_when_active_thirty_minutes_when_not() {
        assert!(is_live(true, 0) && is_live(true, ACTIVE_TTL_SECS - 1));
        assert!(!is_live(true, ACTIVE_TTL_SECS));
        assert!(is_live(false, INACTIVE_TTL_SECS - 1) && !is_live(false, INACTIVE_TTL_SECS));
        assert!(is_live(false, -5), "a touch in the future is now");
    }
}
