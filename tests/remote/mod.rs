//! Past one machine: `bench --server-host` with the row servers on another
//! host over SSH, and one load cut into `--segment`s sent from three hosts
//! and merged. The hosts are network namespaces with a real sshd ([`bed`]);
//! traffic goes only to their addresses.

mod bed;

use std::net::TcpListener;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::support::{bench, fixture, fwbench_within, wait_or_kill, BenchArgs};
use bed::{Bed, SERVER};

/// A short bench ([`bench`]) from client host 1 against the bed's server
/// host, which runs this same fwbench.
fn remote_bench(bed: &Bed, out: &std::path::Path) -> BenchArgs {
    bench(out).args(on_server_host(bed, env!("CARGO_BIN_EXE_fwbench")))
}

/// The flags that put `bench`'s row servers on the bed's server host, over
/// SSH, with `remote_bin` as its fwbench.
fn on_server_host(bed: &Bed, remote_bin: &str) -> Vec<String> {
    let mut flags = vec!["--server-host".to_owned(), format!("root@{SERVER}")];
    flags.extend(bed.fwbench_ssh_flags());
    flags.extend(["--remote-bin".into(), remote_bin.into()]);
    flags
}

/// Runs `command` for at most `timeout`, killing it (by PID) past that.
fn output_within(command: &mut Command, timeout: Duration) -> Output {
    let child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let id = child.id();
    let waiter = std::thread::spawn(move || child.wait_with_output());
    let deadline = Instant::now() + timeout;
    while !waiter.is_finished() {
        if Instant::now() > deadline {
            // SAFETY: signalling our own child by its PID.
            unsafe { libc::kill(id as i32, libc::SIGKILL) };
            panic!("{command:?} ran past {timeout:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    waiter.join().unwrap().expect("wait")
}

fn text(out: &Output) -> String {
    format!(
        "status {:?}\nstdout:\n{}\nstderr:\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn read_json(path: &std::path::Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap()
}

/// The whole path: every row's server started over SSH in the server
/// host, pinned there, validated and loaded from the client host at the
/// host's address; the report names both machines and the round trip;
/// nothing is left running there afterwards.
#[test]
fn bench_runs_each_rows_server_on_the_server_host() {
    let Some(mut bed) = Bed::new("bench", 1) else {
        return;
    };
    bed.start_sshd();
    let out_dir = bed.dir.join("out");
    let args = remote_bench(&bed, &out_dir)
        .frameworks("hono,hyper")
        .only("hello,param")
        .connections(4)
        .set("--server-cpus", "0")
        .in_runtime("200ms");
    let out = output_within(bed.fwbench_in_client(0).args(args), Duration::from_secs(90));
    assert!(out.status.success(), "{}\nsshd:\n{}", text(&out), bed.sshd_log());

    let report = read_json(&out_dir.join("report.json"));
    let host = &report["server_host"];
    assert_eq!(host["destination"], format!("root@{SERVER}"));
    assert_eq!(host["address"], SERVER);
    assert!(host["machine"]["logical_cpus"].as_u64().unwrap() > 0, "{host:#}");
    assert!(host["rtt"]["samples"].as_u64().unwrap() > 0, "{host:#}");
    assert!(host["rtt"]["median_ms"].as_f64().unwrap() > 0.0, "{host:#}");
    assert_eq!(report["pinning"]["server_cpus"], serde_json::json!([0]));
    let rows = report["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 4, "{rows:#?}");
    for row in rows {
        assert_eq!(row["status"]["state"], "ok", "{row:#}");
        let round = &row["rounds"][0];
        assert!(round["successes"].as_u64().unwrap() > 0, "{row:#}");
        assert_eq!(round["errors"], 0, "{row:#}");
    }
    // The JS row's in-runtime figure was measured there too.
    let hono = rows.iter().find(|r| r["framework"] == "hono").unwrap();
    assert!(hono["in_runtime"]["requests"].as_u64().unwrap() > 0, "{hono:#}");
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(
        table.contains(&format!("server host: root@{SERVER} at {SERVER}")),
        "{table}"
    );

    let left = bed.wait_until_server_idle(Duration::from_secs(10));
    assert!(left.is_empty(), "left running on the server host: {left:#?}");
}

/// A server host SSH cannot reach stops the run before any row, with
/// ssh's reason (here: nothing listens on the port).
#[test]
fn a_server_host_that_refuses_ssh_exits_2_before_any_row() {
    let closed = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let dir = std::env::temp_dir().join(format!("fwbench-refused-{}", std::process::id()));
    let started = Instant::now();
    let out = fwbench_within(
        [
            "bench",
            "--server-host",
            "root@127.0.0.1",
            "--ssh-option",
            &format!("Port={closed}"),
            "--only",
            "hello",
            "--out",
            dir.to_str().unwrap(),
        ],
        Duration::from_secs(60),
    )
    .expect("it gives up by itself");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        stderr.contains("cannot reach --server-host root@127.0.0.1"),
        "{stderr}"
    );
    assert!(stderr.contains("Connection refused"), "ssh's reason: {stderr}");
    assert!(
        !stderr.contains("starting and validating"),
        "no row started: {stderr}"
    );
    assert!(started.elapsed() < Duration::from_secs(30));
}

/// A server host whose fwbench is another build is refused by version,
/// naming both.
#[test]
fn a_different_fwbench_on_the_server_host_is_refused_naming_both_versions() {
    let Some(mut bed) = Bed::new("version", 1) else {
        return;
    };
    bed.start_sshd();
    let other = bed.dir.join("old-fwbench");
    std::fs::write(&other, "#!/bin/sh\necho 'fwbench 0.0.1'\n").unwrap();
    std::process::Command::new("chmod")
        .arg("+x")
        .arg(&other)
        .status()
        .unwrap();
    // Refused before any row: none of a short run's flags.
    let mut args: Vec<String> = ["bench", "--only", "hello", "--out"].map(String::from).into();
    args.push(bed.dir.join("out").display().to_string());
    args.extend(on_server_host(&bed, other.to_str().unwrap()));
    let out = output_within(bed.fwbench_in_client(0).args(&args), Duration::from_secs(60));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(stderr.contains("\"fwbench 0.0.1\""), "theirs: {stderr}");
    assert!(
        stderr.contains(&format!("\"fwbench {}", env!("CARGO_PKG_VERSION"))),
        "ours: {stderr}"
    );
}

/// A row server killed on the server host mid-row fails its row as a
/// local crash does: how it ended (from the remote wrapper, since ssh
/// cannot tell) and its stderr, and the run goes on to exit 1.
#[test]
fn a_remote_server_that_dies_mid_row_is_reported_like_a_local_one() {
    let Some(mut bed) = Bed::new("dies", 1) else {
        return;
    };
    bed.start_sshd();
    let out_dir = bed.dir.join("out");
    let args = remote_bench(&bed, &out_dir)
        .frameworks("hyper")
        .only("hello")
        .duration("2s")
        .warmup("0s")
        .rounds(2)
        .connections(2)
        .skip_in_runtime();
    let mut bench = bed.fwbench_in_client(0);
    bench.args(args).stdout(Stdio::piped()).stderr(Stdio::piped());
    let child = bench.spawn().expect("start bench");
    bed.track(&child);
    let server = bed
        .wait_for_row_server(Duration::from_secs(30))
        .unwrap_or_else(|seen| panic!("{seen}\nsshd:\n{}", bed.sshd_log()));
    // Into the first round's measurement, then kill it there.
    std::thread::sleep(Duration::from_millis(1200));
    // SAFETY: signalling a process of this test's bed by its PID.
    unsafe { libc::kill(server as i32, libc::SIGKILL) };
    let out = child.wait_with_output().expect("bench ends");
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let report = read_json(&out_dir.join("report.json"));
    let row = &report["rows"][0];
    let reason = row["status"]["reason"].as_str().unwrap_or_default();
    assert!(
        reason.contains("was killed by signal 9") && reason.contains("during a round"),
        "{row:#}"
    );
    let left = bed.wait_until_server_idle(Duration::from_secs(10));
    assert!(left.is_empty(), "left running on the server host: {left:#?}");
}

/// Ctrl-C, and even SIGKILL, of bench leave no server running on the
/// server host: closing the session closes the server's stdin, which
/// stops it.
#[test]
fn stopping_bench_leaves_no_server_on_the_server_host() {
    let Some(mut bed) = Bed::new("stop", 1) else {
        return;
    };
    bed.start_sshd();
    for signal in [libc::SIGINT, libc::SIGKILL] {
        let args = remote_bench(&bed, &bed.dir.join(format!("out-{signal}")))
            .frameworks("hyper")
            .only("hello")
            .duration("20s")
            .default_warmup()
            .skip_in_runtime();
        let mut bench = bed.fwbench_in_client(0);
        bench.args(args).stdout(Stdio::null()).stderr(Stdio::piped());
        let mut child = bench.spawn().expect("start bench");
        bed.track(&child);
        bed.wait_for_row_server(Duration::from_secs(30))
            .unwrap_or_else(|seen| panic!("{seen}\nsshd:\n{}", bed.sshd_log()));
        // `ip netns exec` runs bench in its own place: this PID is bench.
        // SAFETY: signalling our own child by its PID.
        unsafe { libc::kill(child.id() as i32, signal) };
        let status = wait_or_kill(&mut child, Duration::from_secs(20)).expect("bench stops");
        assert!(!status.success(), "signal {signal}: {status:?}");
        let left = bed.wait_until_server_idle(Duration::from_secs(10));
        assert!(
            left.is_empty(),
            "after signal {signal}, left running there: {left:#?}"
        );
    }
}

/// Three load generators, one per client host, each with its third of one
/// load (`--segment K/3`: of `-n` requests at `--rate` per second, so each
/// takes as long as the whole and the three overlap), against one server;
/// their merge has exactly the requests of one load of the whole, its
/// median and p99 lie between its parts' (as one histogram of every sample
/// must). How close they come to the whole load's is measured, not tested
/// (a busy machine moves a short run's p99 by a stall).
#[test]
fn three_segments_from_three_hosts_merge_into_the_whole_load() {
    let Some(mut bed) = Bed::new("segments", 3) else {
        return;
    };
    let mut server = bed
        .fwbench_in_server()
        .arg("serve")
        .arg(fixture("hello/app.js"))
        .args(["--host", "0.0.0.0", "--port", "0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start the server");
    bed.track(&server);
    let mut banner = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(server.stdout.take().unwrap()),
        &mut banner,
    )
    .unwrap();
    let port = banner
        .split("http://0.0.0.0:")
        .nth(1)
        .and_then(|rest| rest.split('/').next())
        .unwrap_or_else(|| panic!("no address in the banner {banner:?}"));
    let url = format!("http://{SERVER}:{port}/");
    const REQUESTS: u64 = 6000;
    const RATE: u64 = 3000;
    let load = |k: usize, segment: Option<u32>, file: &std::path::Path| {
        let mut command = bed.fwbench_in_client(k);
        command
            .args([
                "load",
                &url,
                "--allow-host",
                SERVER,
                "-c",
                "6",
                "-t",
                "1",
                "--no-progress",
            ])
            .args(["-n", &REQUESTS.to_string(), "--rate", &RATE.to_string()])
            .arg(format!("--json={}", file.display()))
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        if let Some(k) = segment {
            command.arg(format!("--segment={k}/3"));
        }
        command
    };
    let parts: Vec<_> = (1..=3).map(|k| bed.dir.join(format!("part{k}.json"))).collect();
    let children: Vec<_> = parts
        .iter()
        .enumerate()
        .map(|(i, file)| load(i, Some(i as u32 + 1), file).spawn().expect("start a load"))
        .collect();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{}", text(&out));
    }
    let whole_file = bed.dir.join("whole.json");
    let out = output_within(&mut load(0, None, &whole_file), Duration::from_secs(60));
    assert!(out.status.success(), "{}", text(&out));

    let mut merge = vec!["merge".to_owned(), "--json".to_owned()];
    merge.extend(parts.iter().map(|f| f.display().to_string()));
    let out = fwbench_within(&merge, Duration::from_secs(30)).expect("merge ends");
    assert!(out.status.success(), "{}", text(&out));
    let merged: Value = serde_json::from_slice(&out.stdout).expect("merged JSON");
    let whole = read_json(&whole_file);
    assert_eq!(merged["responses"].as_u64(), Some(REQUESTS), "{merged:#}");
    assert_eq!(whole["responses"].as_u64(), Some(REQUESTS), "{whole:#}");
    assert_eq!(merged["latency"]["count"].as_u64(), Some(REQUESTS));
    assert_eq!(merged["errors_total"], 0);
    let segments: Vec<Value> = parts.iter().map(|file| read_json(file)).collect();
    for key in ["p50_us", "p99_us"] {
        let merged_value = merged["latency"][key].as_f64().unwrap();
        // Exact: one histogram of all samples has each percentile between
        // the parts' (1 % for the histogram's buckets).
        let of_parts: Vec<f64> = segments
            .iter()
            .map(|s| s["latency"][key].as_f64().unwrap())
            .collect();
        let (low, high) = of_parts
            .iter()
            .fold((f64::MAX, 0.0f64), |(l, h), v| (l.min(*v), h.max(*v)));
        assert!(
            low * 0.99 <= merged_value && merged_value <= high * 1.01,
            "{key}: merged {merged_value} µs outside its parts' {of_parts:?}"
        );
        // Against the whole load only its presence: three generators beside
        // the server on a shared machine are not one generator, and a short
        // run's percentiles are a scheduling stall apart on a busy one (the
        // comparison is a benchmark's: benches/results/*-remote-*).
        assert!(whole["latency"][key].as_f64().unwrap() > 0.0, "{whole:#}");
    }
    let _ = server.kill();
    let _ = server.wait();
}
