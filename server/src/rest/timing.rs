//! `Server-Timing` for `/rest/v1`, as PostgREST sends it when `PGRST_SERVER_TIMING_ENABLED` is
//! on: `jwt;dur=0.1, parse;dur=0.2, plan;dur=0.1, transaction;dur=1.5, response;dur=0.1`, each
//! phase in milliseconds with one decimal. `jwt` is what the gate took to check the caller's
//! keys; the other phases are marked by the handler as it finishes each.

use std::cell::{Cell, RefCell};
use std::time::{Duration, Instant};

pub use crate::gate::GateTime;

/// The phases of one request, measured one after the other.
#[derive(Debug)]
pub struct Timing {
    enabled: bool,
    last: Cell<Instant>,
    phases: RefCell<Vec<(&'static str, Duration)>>,
}

impl Timing {
    /// Start measuring (a no-op when disabled), with the gate's time as the `jwt` phase.
    pub fn start(enabled: bool, gate: Option<GateTime>) -> Timing {
        let phases = gate.map(|GateTime(d)| vec![("jwt", d)]).unwrap_or_default();
        Timing { enabled, last: Cell::new(Instant::now()), phases: RefCell::new(phases) }
    }

    /// The phase `name` ends now (it began where the previous one ended).
    pub fn mark(&self, name: &'static str) {
        if !self.enabled {
            return;
        }
        let now = Instant::now();
        self.phases.borrow_mut().push((name, now - self.last.get()));
        self.last.set(now);
    }

    /// The header value, or `None` when disabled.
    pub fn header(&self) -> Option<String> {
        if !self.enabled {
            return None;
        }
        let phases = self.phases.borrow();
        let items: Vec<String> =
            phases.iter().map(|(name, d)| format!("{name};dur={:.1}", d.as_secs_f64() * 1000.0)).collect();
        Some(items.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phases_are_listed_in_order_in_milliseconds() {
        let timing = Timing::start(true, Some(GateTime(Duration::from_micros(400))));
        timing.mark("parse");
        timing.mark("plan");
        let header = timing.header().unwrap();
        let names: Vec<&str> = header.split(", ").map(|p| p.split(';').next().unwrap()).collect();
        assert_eq!(names, ["jwt", "parse", "plan"]);
        assert!(header.starts_with("jwt;dur=0.4, parse;dur="), "{header}");
    }

    #[test]
    fn disabled_timing_gives_no_header() {
        let timing = Timing::start(false, Some(GateTime(Duration::from_millis(1))));
        timing.mark("parse");
        assert_eq!(timing.header(), None);
    }
}
