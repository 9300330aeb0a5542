//! Straight to a function's process: the supervisor's answer names the port and secret of the
//! process that served it (`x-functions-direct: <port> <secret>`), and the function's next
//! requests of the same version go there without the supervisor's proxy, one HTTP hop less.
//!
//! A route is kept per entry file, for one version of the function under one supervisor, and is
//! used for `LEASE` after the supervisor gave it: past that, one request goes through the
//! supervisor again, which keeps its idle sweep and limits seeing the function in use and gives
//! the route anew. A new version (an edit, a deploy, new secrets), a restarted supervisor or a
//! process that ended never reuse a route: their key differs, or the connection is refused and
//! the route forgotten (`proxy` then sends the request through the supervisor). A retired process
//! finishes the requests sent straight to it before it ends (`host.ts` drains). Only requests
//! whose body is small enough to keep for that second try are sent straight.
//!
//! When the process's answer also names its worker's lane (`x-functions-lane: <port>`, see
//! `functions-runtime/lane.ts`), requests go to that port instead: the worker's own listener, in
//! the thread that runs the function, one message between threads less each way. A lane closes
//! with its worker (a new version, a limit): its connection is then refused, or broken, which its
//! process explains (`GET /_internal/lane?port=`).

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The supervisor's answer header naming the process.
pub const HEADER: &str = "x-functions-direct";
/// The process's answer header naming its worker's lane.
pub const LANE_HEADER: &str = "x-functions-lane";
/// How long a route is used before a request goes through the supervisor again.
const LEASE: Duration = Duration::from_secs(1);
/// Bodies up to this size (declared by `Content-Length`) are kept, so the request may go straight.
pub const MAX_BODY: usize = 64 * 1024;

/// A process's address, as the supervisor gave it.
#[derive(Clone)]
pub struct Route {
    pub port: u16,
    /// The process's own secret (`x-functions-secret`, its lanes' too); never logged.
    pub secret: String,
    /// The port of the worker's lane, when the process named one.
    pub lane: Option<u16>,
}

impl Route {
    /// Where a request goes: the lane when there is one, else the process.
    pub fn target(&self) -> u16 {
        self.lane.unwrap_or(self.port)
    }
}

struct Entry {
    key: String,
    route: Route,
    at: Instant,
}

/// The routes, by entry file.
#[derive(Default)]
pub struct Routes {
    by_entry: Mutex<HashMap<String, Entry>>,
}

/// What a route is valid for: the supervisor's port and the version the request carries.
pub fn key(supervisor_port: u16, version: &str) -> String {
    format!("{supervisor_port} {version}")
}

impl Routes {
    /// The route for `entry` at `key`, while its lease runs.
    pub fn get(&self, entry: &str, key: &str) -> Option<Route> {
        let map = self.by_entry.lock().ok()?;
        map.get(entry).filter(|e| e.key == key && e.at.elapsed() < LEASE).map(|e| e.route.clone())
    }

    /// Keep the route the supervisor's header names (`<port> <secret>`), with the lane its
    /// `lane` header names (a port); a header that does not read as one is ignored.
    pub fn learn(&self, entry: &str, key: String, header: &str, lane: Option<&str>) {
        let Some((port, secret)) = header.split_once(' ') else { return };
        let (Ok(port), false) = (port.parse::<u16>(), secret.is_empty()) else { return };
        let lane = lane.and_then(|lane| lane.trim().parse::<u16>().ok()).filter(|&lane| lane != 0);
        if let Ok(mut map) = self.by_entry.lock() {
            map.insert(
                entry.to_string(),
                Entry { key, route: Route { port, secret: secret.to_string(), lane }, at: Instant::now() },
            );
        }
    }

    /// Forget the route of `entry` through `port`, its process's or its lane's (it did not answer).
    pub fn forget(&self, entry: &str, port: u16) {
        if let Ok(mut map) = self.by_entry.lock() {
            if map.get(entry).is_some_and(|e| e.route.port == port || e.route.lane == Some(port)) {
                map.remove(entry);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_route_serves_its_own_version_only_and_is_forgotten_by_port() {
        let routes = Routes::default();
        routes.learn("file:///f/index.ts", key(4000, "v1"), "5000 s3cret", None);
        let route = routes.get("file:///f/index.ts", &key(4000, "v1")).expect("learnt");
        assert_eq!((route.port, route.secret.as_str(), route.target()), (5000, "s3cret", 5000));
        assert!(routes.get("file:///f/index.ts", &key(4000, "v2")).is_none(), "another version");
        assert!(routes.get("file:///f/index.ts", &key(4001, "v1")).is_none(), "another supervisor");
        assert!(routes.get("file:///g/index.ts", &key(4000, "v1")).is_none(), "another function");
        routes.forget("file:///f/index.ts", 5001);
        assert!(routes.get("file:///f/index.ts", &key(4000, "v1")).is_some(), "another port forgotten");
        routes.forget("file:///f/index.ts", 5000);
        assert!(routes.get("file:///f/index.ts", &key(4000, "v1")).is_none());
    }

    #[test]
    fn a_header_that_is_not_a_port_and_secret_is_ignored() {
        let routes = Routes::default();
        for header in ["", "5000", "5000 ", "port secret", "70000 s"] {
            routes.learn("e", key(1, "v"), header, Some("6000"));
            assert!(routes.get("e", &key(1, "v")).is_none(), "{header:?}");
        }
    }

    #[test]
    fn a_lane_named_with_the_route_is_its_target_and_forgetting_it_forgets_the_route() {
        let routes = Routes::default();
        routes.learn("e", key(1, "v"), "5000 s", Some("6000"));
        assert_eq!(routes.get("e", &key(1, "v")).map(|r| (r.target(), r.lane)), Some((6000, Some(6000))));
        routes.forget("e", 6000);
        assert!(routes.get("e", &key(1, "v")).is_none());
        for lane in ["", "x", "0", "70000"] {
            routes.learn("e", key(1, "v"), "5000 s", Some(lane));
            assert_eq!(routes.get("e", &key(1, "v")).map(|r| r.target()), Some(5000), "{lane:?}");
        }
    }
}
