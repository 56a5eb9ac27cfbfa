//! One load cut into segments (`load --segment K/N`), run by several load
//! generators at once, and added back into one report (`fwbench merge`).

use std::process::{Command, Stdio};

use fwbench::load::LoadPlan;
use serde_json::Value;

use super::cli;
use crate::support::servers::hello;

/// The parts of a load add up to the whole: 10 connections and 100
/// requests in three parts are 3 + 3 + 4 and 33 + 33 + 34.
#[test]
fn a_segment_takes_its_exact_share_of_connections_requests_and_rate() {
    let part = |k: u32, extra: &[&str]| {
        let segment = format!("{k}/3");
        let mut args = vec!["http://127.0.0.1:9/", "-c", "10", "--segment", segment.as_str()];
        args.extend_from_slice(extra);
        LoadPlan::from_args(&cli(&args)).expect("a valid segment")
    };
    let plans: Vec<LoadPlan> = (1..=3).map(|k| part(k, &["-n", "100"])).collect();
    assert_eq!(plans.iter().map(|p| p.connections).collect::<Vec<_>>(), [3, 3, 4]);
    assert_eq!(
        plans.iter().map(|p| p.requests.unwrap()).collect::<Vec<_>>(),
        [33, 33, 34]
    );
    let rate: f64 = (1..=3).map(|k| part(k, &["--rate", "900"]).rate.unwrap()).sum();
    assert!((rate - 900.0).abs() < 1e-9, "{rate}");

    let too_few = LoadPlan::from_args(&cli(&["http://127.0.0.1:9/", "-c", "2", "--segment", "1/3"]));
    let message = too_few.expect_err("a part with no connection").to_string();
    assert!(message.contains("leave this part none"), "{message}");
}

/// Three generators, each with its third of 50 connections, at once; their
/// merge sums what they did, over the union of their windows.
#[test]
fn three_segments_run_together_merge_into_one_report() {
    let server = hello();
    let url = server.url();
    let dir = std::env::temp_dir().join(format!("fwbench-segments-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let files: Vec<_> = (1..=3).map(|k| dir.join(format!("part{k}.json"))).collect();
    let children: Vec<_> = files
        .iter()
        .enumerate()
        .map(|(i, file)| {
            Command::new(env!("CARGO_BIN_EXE_fwbench"))
                .args(["load", &url, "-c", "50", "-t", "1", "-d", "1s", "--no-progress"])
                .arg(format!("--segment={}/3", i + 1))
                .arg(format!("--json={}", file.display()))
                .stdout(Stdio::null())
                .spawn()
                .expect("start a load generator")
        })
        .collect();
    for mut child in children {
        assert!(child.wait().expect("wait").success());
    }
    let parts: Vec<Value> = files
        .iter()
        .map(|f| serde_json::from_slice(&std::fs::read(f).expect("written")).expect("JSON"))
        .collect();
    let connections: Vec<u64> = parts.iter().map(|p| p["connections"].as_u64().unwrap()).collect();
    assert_eq!(connections, [16, 17, 17]);

    let mut args = vec!["merge".to_owned(), "--json".to_owned()];
    args.extend(files.iter().map(|f| f.display().to_string()));
    let out = crate::support::fwbench(&args);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let merged: Value = serde_json::from_slice(&out.stdout).expect("merged JSON");
    let sum = |key: &str| parts.iter().map(|p| p[key].as_u64().unwrap()).sum::<u64>();
    assert_eq!(merged["responses"].as_u64(), Some(sum("responses")));
    assert_eq!(merged["latency"]["count"].as_u64(), Some(sum("responses")));
    assert_eq!(merged["connections"], 50);
    assert!(merged["overlap_s"].as_f64().unwrap() > 0.5, "{merged:#}");
    let union = merged["measured_s"].as_f64().unwrap();
    let rps = merged["requests_per_sec"].as_f64().unwrap();
    assert!((rps * union - sum("responses") as f64).abs() < 1.0, "{merged:#}");
    std::fs::remove_dir_all(&dir).ok();
}
