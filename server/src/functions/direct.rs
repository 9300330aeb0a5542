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
//! When the process's answer also names its worker's lane (`x-functions-lane: <port>` or the
//! path of its Unix socket, see `functions-runtime/lane.ts`), requests go there instead: the
//! worker's own listener, in the thread that runs the function, one message between threads less
//! each way. A socket is taken only inside this server's lane root (`lane_root`), with a client
//! of its own kept while its route is. A lane closes with its worker (a new version, a limit): its
//! connection is then refused, or broken, which its process explains (`GET /_internal/lane`).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
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

/// Where a worker's lane listens.
#[derive(Clone, Debug)]
pub enum Lane {
    /// A loopback port.
    Port(u16),
    /// A Unix socket in this server's lane root, and the client that reaches it.
    Socket(PathBuf, reqwest::Client),
}

impl Lane {
    /// How its process names it (`x-functions-lane`, `/_internal/lane?lane=`).
    pub fn key(&self) -> String {
        match self {
            Lane::Port(port) => port.to_string(),
            Lane::Socket(path, _) => path.to_string_lossy().into_owned(),
        }
    }
}

impl PartialEq for Lane {
    fn eq(&self, other: &Lane) -> bool {
        match (self, other) {
            (Lane::Port(a), Lane::Port(b)) => a == b,
            (Lane::Socket(a, _), Lane::Socket(b, _)) => a == b,
            _ => false,
        }
    }
}

/// A process's address, as the supervisor gave it.
#[derive(Clone)]
pub struct Route {
    pub port: u16,
    /// The process's own secret (`x-functions-secret`, its lanes' too); never logged.
    pub secret: String,
    /// The worker's lane, when the process named one.
    pub lane: Option<Lane>,
}

/// The same process and lane (the secret goes with them).
impl PartialEq for Route {
    fn eq(&self, other: &Route) -> bool {
        self.port == other.port && self.lane == other.lane
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
    /// The folder of the lanes' sockets (`lane_root`); without it, a socket lane is not taken.
    lane_root: Option<PathBuf>,
}

/// What a route is valid for: the supervisor's port and the version the request carries.
pub fn key(supervisor_port: u16, version: &str) -> String {
    format!("{supervisor_port} {version}")
}

impl Routes {
    /// Routes whose socket lanes lie in `lane_root`.
    pub fn new(lane_root: Option<PathBuf>) -> Routes {
        Routes { by_entry: Mutex::default(), lane_root }
    }

    /// The route for `entry` at `key`, while its lease runs.
    pub fn get(&self, entry: &str, key: &str) -> Option<Route> {
        let map = self.by_entry.lock().ok()?;
        map.get(entry).filter(|e| e.key == key && e.at.elapsed() < LEASE).map(|e| e.route.clone())
    }

    /// Keep the route the supervisor's header names (`<port> <secret>`), with the lane its
    /// `lane` header names (a port, or a socket in the lane root); a header that does not read as
    /// one is ignored. The route already kept for the same lane keeps its client.
    pub fn learn(&self, entry: &str, key: String, header: &str, lane: Option<&str>) {
        let Some((port, secret)) = header.split_once(' ') else { return };
        let (Ok(port), false) = (port.parse::<u16>(), secret.is_empty()) else { return };
        let Ok(mut map) = self.by_entry.lock() else { return };
        let lane = lane.map(str::trim).and_then(|lane| match lane.parse::<u16>() {
            Ok(0) => None,
            Ok(port) => Some(Lane::Port(port)),
            Err(_) => {
                let path = self.socket(lane)?;
                let kept = map.get(entry).and_then(|e| match &e.route.lane {
                    Some(Lane::Socket(known, client)) if known == &path => Some(client.clone()),
                    _ => None,
                });
                Some(Lane::Socket(path.clone(), kept.or_else(|| socket_client(&path))?))
            }
        });
        map.insert(
            entry.to_string(),
            Entry { key, route: Route { port, secret: secret.to_string(), lane }, at: Instant::now() },
        );
    }

    /// `lane` as a socket path directly in a folder of the lane root, else `None`.
    fn socket(&self, lane: &str) -> Option<PathBuf> {
        let root = self.lane_root.as_deref()?;
        let path = Path::new(lane);
        let inside = path.parent().and_then(Path::parent) == Some(root)
            && path.components().all(|c| matches!(c, std::path::Component::RootDir | std::path::Component::Normal(_)));
        inside.then(|| path.to_path_buf())
    }

    /// Forget `route` of `entry` (its process or its lane did not answer), unless another is
    /// kept for it since.
    pub fn forget(&self, entry: &str, route: &Route) {
        if let Ok(mut map) = self.by_entry.lock() {
            if map.get(entry).is_some_and(|e| &e.route == route) {
                map.remove(entry);
            }
        }
    }
}

/// A client reaching the lane's socket at `path` only (loopback: no proxy, no TLS roots).
fn socket_client(path: &Path) -> Option<reqwest::Client> {
    reqwest::Client::builder().no_proxy().tls_built_in_root_certs(false).unix_socket(path).build().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn route(port: u16, lane: Option<Lane>) -> Route {
        Route { port, secret: String::new(), lane }
    }

    #[test]
    fn a_route_serves_its_own_version_only_and_is_forgotten_as_it_was_given() {
        let routes = Routes::default();
        routes.learn("file:///f/index.ts", key(4000, "v1"), "5000 s3cret", None);
        let got = routes.get("file:///f/index.ts", &key(4000, "v1")).expect("learnt");
        assert_eq!((got.port, got.secret.as_str(), &got.lane), (5000, "s3cret", &None));
        assert!(routes.get("file:///f/index.ts", &key(4000, "v2")).is_none(), "another version");
        assert!(routes.get("file:///f/index.ts", &key(4001, "v1")).is_none(), "another supervisor");
        assert!(routes.get("file:///g/index.ts", &key(4000, "v1")).is_none(), "another function");
        routes.forget("file:///f/index.ts", &route(5001, None));
        assert!(routes.get("file:///f/index.ts", &key(4000, "v1")).is_some(), "another process forgotten");
        routes.forget("file:///f/index.ts", &got);
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
    fn a_lane_named_with_the_route_is_kept_and_forgetting_that_route_forgets_it() {
        let routes = Routes::default();
        routes.learn("e", key(1, "v"), "5000 s", Some("6000"));
        let got = routes.get("e", &key(1, "v")).expect("learnt");
        assert_eq!(got.lane, Some(Lane::Port(6000)));
        routes.forget("e", &route(5000, None));
        assert!(routes.get("e", &key(1, "v")).is_some(), "the route without its lane is another");
        routes.forget("e", &got);
        assert!(routes.get("e", &key(1, "v")).is_none());
        for lane in ["", "x", "0", "70000", "/var/tmp/lanes/p/1.sock"] {
            routes.learn("e", key(1, "v"), "5000 s", Some(lane));
            assert_eq!(routes.get("e", &key(1, "v")).map(|r| r.lane), Some(None), "{lane:?}");
        }
    }

    #[test]
    fn a_socket_lane_is_taken_only_in_a_folder_of_the_lane_root_and_keeps_its_client() {
        let routes = Routes::new(Some(PathBuf::from("/var/tmp/lanes-x")));
        routes.learn("e", key(1, "v"), "5000 s", Some("/var/tmp/lanes-x/ab12/1.sock"));
        let got = routes.get("e", &key(1, "v")).and_then(|r| r.lane).map(|l| l.key());
        assert_eq!(got.as_deref(), Some("/var/tmp/lanes-x/ab12/1.sock"));
        for outside in [
            "/var/tmp/lanes-x/1.sock",
            "/var/tmp/lanes-x/ab12/deeper/1.sock",
            "/var/tmp/lanes-x/../lanes-y/ab12/1.sock",
            "/tmp/ab12/1.sock",
            "relative/ab12/1.sock",
        ] {
            routes.learn("f", key(1, "v"), "5000 s", Some(outside));
            assert_eq!(routes.get("f", &key(1, "v")).map(|r| r.lane), Some(None), "{outside:?}");
        }
    }
}
