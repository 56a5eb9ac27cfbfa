/*!
The validated plan of `fwbench k8s-job` (the second of ripgrep's two
stages): [`JobPlan::from_args`] checks every value and how values combine,
so the manifests are written only for a Job that can run, and a mistake is
refused here, on the user's machine, rather than in N pods.
*/

use std::time::Duration;

use anyhow::{bail, Context};
use clap::Parser;

use super::args::K8sJobArgs;
use crate::load::{
    is_loopback, url_host, AllowedHost, LoadArgs, DEFAULT_DURATION, HARD_CAP, MAX_SEGMENTS, MAX_THREADS,
};

/// The longest Job name: the pods of an Indexed Job take the hostname
/// NAME-INDEX (up to NAME-999, a DNS label of at most 63 characters) and
/// the merge Job is NAME-merge, so 63 - 6 leaves room for both.
pub const MAX_NAME: usize = 57;

/// The least memory a load pod may have: a generator with a few threads,
/// its histograms and buffers lives in tens of MiB.
const MIN_MEMORY_BYTES: f64 = 64.0 * 1024.0 * 1024.0;

/// How long past its own measured time (and warm-up) a pod may take before
/// Kubernetes stops it (`activeDeadlineSeconds`): image pull, scheduling,
/// start-up. A run that cannot start within it would not overlap the others
/// anyway.
const START_ROOM: Duration = Duration::from_secs(600);

/// Where the pods' reports go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Results {
    /// Files on this PersistentVolumeClaim, merged by a second Job.
    Claim(String),
    /// Each pod's log: `kubectl logs`, then `fwbench merge` on the user's
    /// machine.
    Logs,
}

/// Everything the manifests need, validated.
#[derive(Debug, Clone)]
pub struct JobPlan {
    /// The target, as the pods reach it (resolved only there).
    pub url: String,
    /// The image holding fwbench.
    pub image: String,
    /// Load pods, each one segment.
    pub pods: u32,
    /// Whole CPUs per pod (requests = limits).
    pub cpus: u32,
    /// Memory per pod as a Kubernetes quantity (requests = limits).
    pub memory: String,
    /// The Jobs' namespace, if one is written.
    pub namespace: Option<String>,
    /// The load Job's name (the merge Job's is NAME-merge).
    pub name: String,
    /// Where the reports go.
    pub results: Results,
    /// The `fwbench load` flags for the whole load, as the user gave them,
    /// followed by the ones fwbench adds (-t, --allow-host with the
    /// target's host, --no-progress) unless the user gave them already.
    pub load_flags: Vec<String>,
    /// How long a pod may live: its warm-up and measured time, plus
    /// [`START_ROOM`].
    pub deadline: Duration,
}

/// `fwbench load`'s flags on their own, to check the ones given after `--`
/// exactly as the pods will parse them.
#[derive(Debug, Parser)]
#[command(name = "fwbench load", no_binary_name = true)]
struct LoadFlags {
    #[command(flatten)]
    args: LoadArgs,
}

impl JobPlan {
    /// Checks `args` and builds the plan; the error says what to change.
    pub fn from_args(args: &K8sJobArgs) -> anyhow::Result<JobPlan> {
        if !(1..=MAX_SEGMENTS).contains(&args.pods) {
            bail!(
                "--pods {}: the load pods must number from 1 to {MAX_SEGMENTS}",
                args.pods
            );
        }
        let cpus = parse_cpus(&args.cpus)?;
        check_memory(&args.memory)?;
        check_image(&args.image)?;
        check_name(&args.name)?;
        if let Some(namespace) = &args.namespace {
            check_dns_label(namespace).with_context(|| format!("--namespace {namespace:?}"))?;
        }
        let results = match &args.pvc {
            Some(claim) => {
                check_dns_subdomain(claim).with_context(|| format!("--pvc {claim:?}"))?;
                Results::Claim(claim.clone())
            }
            None => Results::Logs,
        };
        if args.merge && args.pods == 1 {
            bail!("--merge with --pods 1: one pod's report is the whole run's already, there is nothing to merge");
        }
        let host = url_host(&args.url).with_context(|| format!("the target URL {:?}", args.url))?;
        let in_pod_loopback = host.eq_ignore_ascii_case("localhost") || host.parse().is_ok_and(is_loopback);
        if in_pod_loopback {
            bail!(
                "the target {} is loopback, which in a pod is the pod itself; aim at the server's \
                 Service instead, e.g. http://web.NAMESPACE.svc.cluster.local:8080/",
                args.url
            );
        }
        let (load, deadline) = check_load_flags(&args.url, &args.load, args.pods)?;
        let mut load_flags = args.load.clone();
        if load.threads.is_none() {
            load_flags.extend(["-t".to_owned(), cpus.to_string()]);
        }
        // The pods load the Service the user named: allowed by name (or
        // address), as `load --allow-host` wants it named twice.
        let allowed: AllowedHost = host
            .parse()
            .map_err(|error: String| anyhow::anyhow!("the target URL {:?}: {error}", args.url))?;
        if !load.allow_hosts.contains(&allowed) {
            load_flags.extend(["--allow-host".to_owned(), host.clone()]);
        }
        if !load.no_progress {
            load_flags.push("--no-progress".to_owned());
        }
        Ok(JobPlan {
            url: args.url.clone(),
            image: args.image.clone(),
            pods: args.pods,
            cpus,
            memory: args.memory.clone(),
            namespace: args.namespace.clone(),
            name: args.name.clone(),
            results,
            load_flags,
            deadline,
        })
    }

    /// The merge Job's name.
    pub fn merge_name(&self) -> String {
        format!("{}-merge", self.name)
    }
}

/// Parses the flags given after `--` as a pod will, refuses the ones
/// k8s-job sets itself and a load too small to cut into `pods` parts, and
/// returns them with the pods' deadline.
fn check_load_flags(url: &str, flags: &[String], pods: u32) -> anyhow::Result<(LoadArgs, Duration)> {
    let argv = std::iter::once(url).chain(flags.iter().map(String::as_str));
    let load = match LoadFlags::try_parse_from(argv) {
        Ok(parsed) => parsed.args,
        Err(error) => bail!(
            "the flags after `--` are not flags of fwbench load ({}): {}",
            flags.join(" "),
            error.render().to_string().trim()
        ),
    };
    let owned = [
        (
            load.segment.is_some() || load.segment_from_job_index.is_some(),
            "--segment",
            "each pod gets its segment from its Job index",
        ),
        (
            load.json.is_some(),
            "--json",
            "the reports go to --pvc or to the pods' logs",
        ),
        (
            load.hdr_out.is_some(),
            "--hdr-out",
            "a file in a pod is lost with it; merge the reports instead",
        ),
        (
            load.body_file.is_some(),
            "--body-file",
            "the file is on this machine, not in the pods; give the body with --body",
        ),
    ];
    if let Some((_, flag, why)) = owned.iter().find(|(given, ..)| *given) {
        bail!("leave {flag} out of the load flags: {why}");
    }
    if load.connections < pods as usize {
        bail!(
            "-c {} cut into {pods} pods leaves some pod no connection; give at least -c {pods}",
            load.connections
        );
    }
    if let Some(requests) = load.requests.filter(|&n| n < u64::from(pods)) {
        bail!("-n {requests} cut into {pods} pods leaves some pod no request; give at least -n {pods}");
    }
    let measured = match (load.duration, load.requests) {
        (Some(duration), _) => duration,
        (None, Some(_)) => HARD_CAP,
        (None, None) => DEFAULT_DURATION,
    };
    let deadline = measured.min(HARD_CAP) + load.warmup + START_ROOM;
    Ok((load, deadline))
}

/// Whole CPUs, 1 to the load generator's thread limit.
fn parse_cpus(text: &str) -> anyhow::Result<u32> {
    let whole = || {
        format!(
            "--cpus {text:?}: give a whole number of CPUs from 1 to {MAX_THREADS}, like 2; \
             whole CPUs with requests = limits are what give a pod cores of its own \
             (Guaranteed QoS and the static CPU manager), so 1.5 or 500m are refused"
        )
    };
    match text.trim().parse::<u32>() {
        Ok(cpus) if (1..=MAX_THREADS as u32).contains(&cpus) => Ok(cpus),
        _ => bail!(whole()),
    }
}

/// A Kubernetes memory quantity (a decimal number with an optional binary
/// or decimal suffix), at least [`MIN_MEMORY_BYTES`].
fn check_memory(text: &str) -> anyhow::Result<()> {
    let split = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(text.len());
    let (number, suffix) = text.split_at(split);
    let scale: f64 = match suffix {
        "" => 1.0,
        "k" => 1e3,
        "M" => 1e6,
        "G" => 1e9,
        "T" => 1e12,
        "Ki" => 1024.0,
        "Mi" => 1024.0 * 1024.0,
        "Gi" => 1024.0 * 1024.0 * 1024.0,
        "Ti" => 1024.0 * 1024.0 * 1024.0 * 1024.0,
        _ => bail!("--memory {text:?}: give a Kubernetes quantity such as 512Mi, 1Gi or 2G"),
    };
    let Ok(value) = number.parse::<f64>() else {
        bail!("--memory {text:?}: give a Kubernetes quantity such as 512Mi, 1Gi or 2G");
    };
    if value * scale < MIN_MEMORY_BYTES {
        bail!("--memory {text}: a load pod needs at least 64Mi");
    }
    Ok(())
}

/// An image reference: not empty, no spaces or control characters.
fn check_image(image: &str) -> anyhow::Result<()> {
    if image.is_empty()
        || image.starts_with('-')
        || image.chars().any(|c| c.is_whitespace() || c.is_control())
    {
        bail!("--image {image:?}: give an image reference such as registry.example.com/fwbench:0.1.0");
    }
    Ok(())
}

/// The Job's name: a DNS label short enough for its pods' hostnames and
/// the merge Job's name.
fn check_name(name: &str) -> anyhow::Result<()> {
    check_dns_label(name).with_context(|| format!("--name {name:?}"))?;
    if name.len() > MAX_NAME {
        bail!(
            "--name {name:?} has {} characters; at most {MAX_NAME}, so that its pods' \
             hostnames (NAME-999) and the merge Job (NAME-merge) stay within 63",
            name.len()
        );
    }
    Ok(())
}

/// An RFC 1123 label, as Kubernetes names namespaces and Job pods'
/// hostnames: 1 to 63 lower-case letters, digits and '-', starting and
/// ending with a letter or digit.
pub fn check_dns_label(name: &str) -> anyhow::Result<()> {
    let alnum = |c: Option<char>| c.is_some_and(|c| c.is_ascii_lowercase() || c.is_ascii_digit());
    if name.is_empty()
        || name.len() > 63
        || !name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        || !alnum(name.chars().next())
        || !alnum(name.chars().last())
    {
        bail!(
            "not a DNS-1123 label: 1 to 63 lower-case letters, digits and '-', starting and \
             ending with a letter or digit, like fwbench-load"
        );
    }
    Ok(())
}

/// An RFC 1123 subdomain, as Kubernetes names most objects (a claim):
/// DNS labels joined by '.', 253 characters at most.
fn check_dns_subdomain(name: &str) -> anyhow::Result<()> {
    if name.len() > 253 || name.split('.').any(|label| check_dns_label(label).is_err()) {
        bail!(
            "not a DNS-1123 subdomain: lower-case letters, digits, '-' and '.', 253 at most, \
             starting and ending with a letter or digit, like fwbench-results"
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(extra: &[&str]) -> K8sJobArgs {
        #[derive(Parser)]
        struct Cli {
            #[command(flatten)]
            args: K8sJobArgs,
        }
        let mut argv = vec![
            "k8s-job",
            "http://web.bench.svc:8080/hello",
            "--image",
            "reg.example/fwbench:1",
        ];
        argv.extend_from_slice(extra);
        Cli::try_parse_from(argv).expect("flags parse").args
    }

    fn refused(extra: &[&str]) -> String {
        format!("{:#}", JobPlan::from_args(&args(extra)).expect_err("refused"))
    }

    #[test]
    fn the_pods_get_threads_for_their_cpus_and_may_load_a_service() {
        let plan = JobPlan::from_args(&args(&[
            "--pods", "4", "--cpus", "2", "--", "-c", "100", "-d", "30s",
        ]))
        .unwrap();
        assert_eq!(
            plan.load_flags,
            [
                "-c",
                "100",
                "-d",
                "30s",
                "-t",
                "2",
                "--allow-host",
                "web.bench.svc",
                "--no-progress"
            ]
        );
        assert_eq!(plan.deadline, Duration::from_secs(30 + 600));
        assert_eq!(plan.results, Results::Logs);
        assert_eq!(plan.merge_name(), "fwbench-load-merge");

        let given = JobPlan::from_args(&args(&[
            "--pods",
            "2",
            "--pvc",
            "results",
            "--",
            "-t",
            "3",
            "--allow-host",
            "web.bench.svc",
        ]));
        let given = given.unwrap();
        assert_eq!(
            given.load_flags,
            ["-t", "3", "--allow-host", "web.bench.svc", "--no-progress"]
        );
        assert_eq!(given.results, Results::Claim("results".into()));
        assert_eq!(given.deadline, DEFAULT_DURATION + START_ROOM);
    }

    #[test]
    fn pods_are_counted_from_1_to_max_segments() {
        assert!(JobPlan::from_args(&args(&["--pods", "1000", "--", "-c", "1000"])).is_ok());
        assert!(refused(&["--pods", "0"]).contains("from 1 to 1000"));
        assert!(refused(&["--pods", "1001"]).contains("from 1 to 1000"));
    }

    #[test]
    fn cpus_are_whole_and_memory_is_a_quantity() {
        for bad in ["1.5", "500m", "0", "-1", "257", "two"] {
            assert!(
                refused(&["--pods", "2", &format!("--cpus={bad}")]).contains("whole number of CPUs"),
                "{bad}"
            );
        }
        for good in ["64Mi", "1Gi", "1.5Gi", "2G", "134217728"] {
            assert!(
                JobPlan::from_args(&args(&["--pods", "2", "--memory", good])).is_ok(),
                "{good}"
            );
        }
        for bad in ["1 Gi", "1gb", "Gi", "lots"] {
            assert!(
                refused(&["--pods", "2", "--memory", bad]).contains("quantity"),
                "{bad}"
            );
        }
        assert!(refused(&["--pods", "2", "--memory", "32Mi"]).contains("at least 64Mi"));
    }

    #[test]
    fn names_are_dns_labels_with_room_for_the_pods() {
        for bad in ["Fwbench", "-load", "load-", "load_1", "a.b", ""] {
            assert!(
                refused(&["--pods", "2", &format!("--name={bad}")]).contains("DNS-1123 label"),
                "{bad:?}"
            );
        }
        let long = "a".repeat(MAX_NAME + 1);
        assert!(refused(&["--pods", "2", "--name", &long]).contains("at most 57"));
        assert!(JobPlan::from_args(&args(&["--pods", "2", "--name", &"a".repeat(MAX_NAME)])).is_ok());
        assert!(refused(&["--pods", "2", "--namespace", "Bench"]).contains("--namespace"));
        assert!(refused(&["--pods", "2", "--pvc", "results_1"]).contains("subdomain"));
        assert!(JobPlan::from_args(&args(&["--pods", "2", "--pvc", "fwbench.results"])).is_ok());
    }

    #[test]
    fn load_flags_that_k8s_job_owns_or_that_cannot_be_cut_are_refused() {
        assert!(refused(&["--pods", "2", "--", "--segment", "1/2"]).contains("leave --segment out"));
        assert!(refused(&["--pods", "2", "--", "--json=x.json"]).contains("leave --json out"));
        assert!(refused(&["--pods", "2", "--", "--body-file", "b"]).contains("--body"));
        assert!(refused(&["--pods", "8", "--", "-c", "4"]).contains("at least -c 8"));
        assert!(refused(&["--pods", "8", "--", "-n", "7"]).contains("at least -n 8"));
        assert!(refused(&["--pods", "2", "--", "--rate", "fast"]).contains("not flags of fwbench load"));
        assert!(refused(&["--pods", "2", "--", "extra-url"]).contains("not flags of fwbench load"));
    }

    #[test]
    fn a_loopback_target_or_a_bad_url_is_refused() {
        #[derive(Parser)]
        struct Cli {
            #[command(flatten)]
            args: K8sJobArgs,
        }
        let with_url = |url: &str| {
            let cli = Cli::try_parse_from(["k8s-job", url, "--image", "i", "--pods", "2"]).unwrap();
            format!("{:#}", JobPlan::from_args(&cli.args).expect_err("refused"))
        };
        assert!(with_url("http://127.0.0.1:8080/").contains("the pod itself"));
        assert!(with_url("http://localhost/").contains("the pod itself"));
        assert!(with_url("https://web/").contains("https is not supported"));
    }
}
