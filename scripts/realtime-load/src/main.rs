//! Broadcast load generator of `make bench-realtime`, scenario (b); `scripts/bench_realtime.py`
//! runs it (not a test, not shipped). `sockets` receivers join one topic, then one sender pushes
//! `rate` broadcasts/s for `seconds`; it prints what `bench_realtime_load.mjs broadcast` prints
//! (JSON lines: `ready` once every socket is joined, then `result`), so the two can be swapped.
//!
//! Why a second generator: with 5,000 sockets on a 2-core machine, the Node receivers' cost per
//! delivered frame weighed as much as the server's, on the same cores, so the latencies partly
//! measured the client. Here the receivers are `threads` threads (the cores by default), each
//! serving its share of the sockets from one epoll loop (`mio`), and each loop's own delay is
//! printed beside the latencies: when it is high, the client was the bottleneck.
//!
//!   bench-realtime-load broadcast '{"url":…,"token":…,"topic":…,"sockets":5000,"rate":10,"seconds":20}'

mod phx;
mod receiver;
mod stats;

use std::io::Write;
use std::sync::atomic::Ordering;
use std::sync::mpsc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde::Deserialize;
use serde_json::json;

#[derive(Deserialize)]
struct Config {
    url: String,
    token: String,
    topic: String,
    sockets: usize,
    rate: f64,
    seconds: f64,
    /// Receiver threads; the machine's cores by default.
    threads: Option<usize>,
}

/// Wall-clock milliseconds since the epoch, with microseconds: comparable across processes.
pub fn wall_ms() -> f64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0.0, |d| d.as_secs_f64() * 1000.0)
}

fn emit(value: serde_json::Value) {
    println!("{value}");
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let config = match (args.get(1).map(String::as_str), args.get(2)) {
        (Some("broadcast"), Some(json)) => serde_json::from_str::<Config>(json),
        _ => {
            eprintln!("usage: bench-realtime-load broadcast '<json config>'");
            std::process::exit(2);
        }
    };
    let config = config.unwrap_or_else(|e| {
        eprintln!("bad config: {e}");
        std::process::exit(2);
    });
    if let Err(e) = broadcast(config) {
        eprintln!("{e}");
        std::process::exit(1);
    }
}

fn broadcast(c: Config) -> Result<(), String> {
    let threads = c.threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get())).max(1);
    let messages = (c.rate * c.seconds).round() as usize;
    let started = wall_ms();
    let shared = receiver::Shared {
        url: c.url.clone(),
        topic: c.topic.clone(),
        token: c.token.clone(),
        messages,
        unique: Default::default(),
        measuring: Default::default(),
        stop: Default::default(),
    };
    let per = c.sockets.div_ceil(threads);
    std::thread::scope(|scope| {
        let (ready_tx, ready_rx) = mpsc::channel();
        let receivers: Vec<_> = (0..threads)
            .map(|t| {
                let range = (t * per).min(c.sockets)..((t + 1) * per).min(c.sockets);
                let (shared, ready) = (&shared, ready_tx.clone());
                scope.spawn(move || receiver::run(shared, range, ready))
            })
            .collect();
        drop(ready_tx);
        let (mut connected, mut failed, mut first_error) = (0usize, 0usize, None::<String>);
        for (joined, lost, error) in ready_rx.iter().take(threads) {
            (connected, failed) = (connected + joined, failed + lost);
            first_error = first_error.or(error);
        }
        let run = send(&c, &shared, messages, connected, failed, first_error, started);
        shared.stop.store(true, Ordering::Relaxed);
        let tallies: Vec<receiver::Tally> = receivers.into_iter().filter_map(|r| r.join().ok()).collect();
        let (t0_wall, send_lag) = run?;
        report(&tallies, messages, t0_wall, send_lag, threads);
        Ok(())
    })
}

/// Join the sender, say `ready`, push the ticks on schedule and wait for the fan-out to drain.
/// Returns the wall-clock ms of the first tick and how far behind schedule the sender fell.
fn send(
    c: &Config,
    shared: &receiver::Shared,
    messages: usize,
    connected: usize,
    failed: usize,
    first_error: Option<String>,
    started: f64,
) -> Result<(f64, Duration), String> {
    let mut sender =
        phx::open_and_join(&c.url, &c.topic, &c.token, [5, 6, 7, 8]).map_err(|e| format!("sender: {e}"))?;
    emit(json!({ "event": "ready", "connected": connected, "failed": failed, "firstError": first_error,
                 "setup_s": (wall_ms() - started) / 1000.0 }));
    std::thread::sleep(Duration::from_secs(1));
    shared.measuring.store(true, Ordering::Relaxed);
    let t0 = Instant::now();
    let t0_wall = wall_ms();
    let interval = Duration::from_secs_f64(1.0 / c.rate);
    let mut send_lag = Duration::ZERO;
    for seq in 0..messages {
        let due = t0 + interval.mul_f64(seq as f64);
        let now = Instant::now();
        if due > now {
            std::thread::sleep(due - now);
        } else {
            send_lag = send_lag.max(now - due);
        }
        let text = phx::tick(&c.topic, seq as u64 + 2, seq, wall_ms());
        sender.stream.write_all(&phx::text_frame(&text, [5, 6, 7, 8])).map_err(|e| format!("sender: {e}"))?;
    }
    shared.measuring.store(false, Ordering::Relaxed);
    // Wait for the fan-out to drain: everything arrived, or nothing new for 5 s, or 30 s.
    let expected = (connected * messages) as u64;
    let sent_at = Instant::now();
    let (mut seen, mut stable) = (u64::MAX, Instant::now());
    while sent_at.elapsed() < Duration::from_secs(30) {
        let got = shared.unique.load(Ordering::Relaxed);
        if got >= expected {
            break;
        }
        if got != seen {
            (seen, stable) = (got, Instant::now());
        } else if stable.elapsed() > Duration::from_secs(5) {
            break;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    let _ = sender.stream.write_all(&phx::client_frame(8, &1000u16.to_be_bytes(), [5, 6, 7, 8]));
    Ok((t0_wall, send_lag))
}

fn report(tallies: &[receiver::Tally], messages: usize, t0_wall: f64, send_lag: Duration, threads: usize) {
    let (mut deliveries, mut dups, mut missed, mut last) = (0u64, 0u64, 0u64, 0f64);
    let (mut latencies, mut closed) = (Vec::new(), serde_json::Map::new());
    let (mut worst_p99, mut worst_max) = (0f64, 0f64);
    let mut connected = 0;
    for tally in tallies {
        connected += tally.joined;
        for &count in &tally.received {
            deliveries += u64::from(count);
            match count {
                0 => missed += 1,
                n => dups += u64::from(n - 1),
            }
        }
        last = last.max(tally.last);
        latencies.extend_from_slice(&tally.latencies);
        for (reason, n) in &tally.closed {
            let before = closed.get(reason).and_then(|v| v.as_u64()).unwrap_or(0);
            closed.insert(reason.clone(), json!(before + n));
        }
        let delay = stats::percentiles(&mut tally.delays.clone());
        worst_p99 = worst_p99.max(delay.p99.unwrap_or(0.0));
        worst_max = worst_max.max(delay.max.unwrap_or(0.0));
    }
    let lat = stats::percentiles(&mut latencies);
    emit(json!({
        "event": "result", "messages": messages, "connected": connected, "expected": connected * messages,
        "deliveries": deliveries, "unique": lat.samples, "missed": missed, "duplicated": dups,
        "window_s": (last - t0_wall) / 1000.0, "send_lag_ms": send_lag.as_secs_f64() * 1000.0,
        // How late the receiver loops got round to a deadline while sending (the worst thread).
        "loop_p99_ms": worst_p99, "loop_max_ms": worst_max,
        "closed": closed, "threads": threads,
        "p50": lat.p50, "p95": lat.p95, "p99": lat.p99, "max": lat.max, "samples": lat.samples,
    }));
}
