/*!
The target of a load run: URL parsing and the loopback-only safety rule.

The URL is parsed by hand rather than with a URL crate because the load
client needs exactly four things from it (address, `Host` header, request
target, scheme check) and each failure deserves its own message.

Safety: load only ever goes to this machine. A host is accepted only when
every address it resolves to is loopback (127.0.0.0/8, ::1, or ::1's
IPv4-mapped forms), so a typo or a DNS answer can never aim a benchmark at
another machine.

The one exception is named twice: [`parse_target_allowing`] also accepts
hosts the user listed on their own ([`AllowedHost`]: `load --allow-host
HOST`, the address of `bench --server-host`, where the user chose the
machine, or the Service name a `k8s-job` pod loads). An address allows
itself; a name allows whatever it resolves to, when the URL spells that
same name. Anything else is refused, so a typo in either place is refused
rather than followed.
*/

use std::fmt;
use std::net::{IpAddr, SocketAddr, ToSocketAddrs};
use std::str::FromStr;

/// A host named on purpose as a load target besides loopback (`load
/// --allow-host`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AllowedHost {
    /// This address, however the URL names it.
    Addr(IpAddr),
    /// Whatever this name resolves to, when the URL's host is this name
    /// (compared without case).
    Name(String),
}

impl FromStr for AllowedHost {
    type Err = String;

    fn from_str(text: &str) -> Result<AllowedHost, String> {
        let bare = text.trim_start_matches('[').trim_end_matches(']');
        if let Ok(ip) = bare.parse::<IpAddr>() {
            return Ok(AllowedHost::Addr(ip));
        }
        let name_byte = |b: u8| b.is_ascii_alphanumeric() || b == b'-' || b == b'.';
        if text.is_empty() || !text.bytes().all(name_byte) {
            return Err(format!(
                "--allow-host takes an IP address or a host name (letters, digits, '-' and '.'), got {text:?}"
            ));
        }
        Ok(AllowedHost::Name(text.to_ascii_lowercase()))
    }
}

impl From<IpAddr> for AllowedHost {
    fn from(ip: IpAddr) -> AllowedHost {
        AllowedHost::Addr(ip)
    }
}

/// A validated load target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// The URL as given (for reports).
    pub url: String,
    /// The loopback address connections go to.
    pub addr: SocketAddr,
    /// The `Host` header value: host, plus the port when the URL has one.
    pub host_header: String,
    /// The request target: path and query, never empty (at least `/`).
    pub path: String,
}

/// Why a URL cannot be a load target.
#[derive(Debug, thiserror::Error)]
pub enum TargetError {
    /// The text is not an `http://host[:port][/path]` URL.
    #[error("invalid URL '{url}': {reason}; expected something like http://127.0.0.1:3000/path")]
    Invalid {
        /// The URL as given.
        url: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A scheme other than http.
    #[error("unsupported scheme '{scheme}' in '{url}': {hint}")]
    Scheme {
        /// The URL as given.
        url: String,
        /// The scheme found.
        scheme: String,
        /// What to do instead.
        hint: &'static str,
    },
    /// The host name did not resolve.
    #[error("cannot resolve host '{host}' of '{url}': {cause}")]
    Resolve {
        /// The URL as given.
        url: String,
        /// The host part.
        host: String,
        /// The resolver's error (in the message, so not also a `source`).
        cause: std::io::Error,
    },
    /// The host resolves (at least partly) outside loopback and the
    /// addresses allowed besides it.
    #[error(
        "refusing to send load to '{host}' ({addrs}): fwbench load only targets this machine's \
         loopback (127.0.0.0/8 or ::1); start the server on 127.0.0.1 and use that address, or, \
         for a server on a machine you run, name its address with --allow-host IP as well"
    )]
    NotLoopback {
        /// The host part.
        host: String,
        /// The addresses it resolved to.
        addrs: AddrList,
    },
}

/// A list of addresses, displayed comma-separated.
#[derive(Debug)]
pub struct AddrList(pub Vec<IpAddr>);

impl fmt::Display for AddrList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            return f.write_str("no addresses");
        }
        for (i, a) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{a}")?;
        }
        Ok(())
    }
}

/// Whether `ip` is on this machine's loopback.
pub fn is_loopback(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => v4.is_loopback(),
        IpAddr::V6(v6) => v6.is_loopback() || v6.to_ipv4_mapped().is_some_and(|v4| v4.is_loopback()),
    }
}

/// Parses `url` and resolves its host, refusing anything but loopback.
pub fn parse_target(url: &str) -> Result<Target, TargetError> {
    parse_target_allowing(url, &[])
}

/// [`parse_target`], also accepting the hosts in `allowed` (each named by
/// the user on purpose: see the module's docs).
pub fn parse_target_allowing(url: &str, allowed: &[AllowedHost]) -> Result<Target, TargetError> {
    let parts = split_url(url)?;
    let name_allowed = allowed
        .iter()
        .any(|a| matches!(a, AllowedHost::Name(name) if name.eq_ignore_ascii_case(&parts.host)));
    let addr_allowed = |ip: &IpAddr| allowed.contains(&AllowedHost::Addr(*ip));
    let addrs: Vec<IpAddr> = match parts.host.parse::<IpAddr>() {
        Ok(ip) => vec![ip],
        Err(_) => (parts.host.as_str(), parts.port)
            .to_socket_addrs()
            .map_err(|cause| TargetError::Resolve {
                url: url.to_string(),
                host: parts.host.clone(),
                cause,
            })?
            .map(|a| a.ip())
            .collect(),
    };
    if addrs.is_empty() || !(name_allowed || addrs.iter().all(|ip| is_loopback(*ip) || addr_allowed(ip))) {
        return Err(TargetError::NotLoopback {
            host: parts.host,
            addrs: AddrList(addrs),
        });
    }
    // Prefer IPv4: servers in this project bind 127.0.0.1, and `localhost`
    // usually resolves to ::1 first.
    let ip = addrs.iter().copied().find(IpAddr::is_ipv4).unwrap_or(addrs[0]);
    Ok(Target {
        url: url.to_string(),
        addr: SocketAddr::new(ip, parts.port),
        host_header: parts.host_header,
        path: parts.path,
    })
}

/// The host of `url` as written (brackets of an IPv6 address dropped),
/// its syntax checked, nothing resolved: for `fwbench k8s-job`, whose
/// target is resolved only inside the pods.
pub fn url_host(url: &str) -> Result<String, TargetError> {
    Ok(split_url(url)?.host)
}

/// The pieces of an http URL, before resolution.
#[derive(Debug, PartialEq, Eq)]
struct UrlParts {
    host: String,
    port: u16,
    host_header: String,
    path: String,
}

fn split_url(url: &str) -> Result<UrlParts, TargetError> {
    let invalid = |reason: &str| TargetError::Invalid {
        url: url.to_string(),
        reason: reason.to_string(),
    };
    let Some((scheme, rest)) = url.trim().split_once("://") else {
        return Err(invalid("it has no scheme (http://)"));
    };
    if !scheme.eq_ignore_ascii_case("http") {
        let hint = if scheme.eq_ignore_ascii_case("https") {
            "https is not supported; load-test the server's plain-HTTP port on loopback (http://)"
        } else {
            "only http:// is supported"
        };
        return Err(TargetError::Scheme {
            url: url.to_string(),
            scheme: scheme.to_string(),
            hint,
        });
    }
    let rest = rest.split('#').next().unwrap_or_default();
    let end = rest.find(['/', '?']).unwrap_or(rest.len());
    let (authority, path) = rest.split_at(end);
    if authority.contains('@') {
        return Err(invalid("user information (user@host) is not supported"));
    }
    let (host, port_text) = if let Some(bracketed) = authority.strip_prefix('[') {
        let Some((host, after)) = bracketed.split_once(']') else {
            return Err(invalid("an IPv6 address must be closed with ']'"));
        };
        match after {
            "" => (host, None),
            _ => match after.strip_prefix(':') {
                Some(p) => (host, Some(p)),
                None => return Err(invalid("unexpected text after the IPv6 address")),
            },
        }
    } else {
        match authority.rsplit_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (authority, None),
        }
    };
    if host.is_empty() {
        return Err(invalid("the host is missing"));
    }
    if host.contains(':') && !authority.starts_with('[') {
        return Err(invalid("an IPv6 host must be written in brackets, like [::1]"));
    }
    let port = match port_text {
        None => 80,
        Some(p) => match p.parse::<u16>() {
            Ok(port) if port > 0 => port,
            _ => return Err(invalid("the port must be a number from 1 to 65535")),
        },
    };
    let path = match path {
        "" => "/".to_string(),
        p if p.starts_with('?') => format!("/{p}"),
        p => p.to_string(),
    };
    if path.bytes().any(|b| b <= b' ' || b == 0x7f) {
        return Err(invalid(
            "the path contains spaces or control characters; percent-encode them (%20)",
        ));
    }
    Ok(UrlParts {
        host: host.to_string(),
        port,
        host_header: authority.to_string(),
        path,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(host: &str, port: u16, host_header: &str, path: &str) -> UrlParts {
        UrlParts {
            host: host.into(),
            port,
            host_header: host_header.into(),
            path: path.into(),
        }
    }

    #[test]
    fn splits_urls() {
        assert_eq!(
            split_url("http://127.0.0.1:3000/a/b?x=1").unwrap(),
            parts("127.0.0.1", 3000, "127.0.0.1:3000", "/a/b?x=1")
        );
        assert_eq!(
            split_url("HTTP://localhost").unwrap(),
            parts("localhost", 80, "localhost", "/")
        );
        assert_eq!(
            split_url("http://[::1]:8080?q#frag").unwrap(),
            parts("::1", 8080, "[::1]:8080", "/?q")
        );
    }

    #[test]
    fn rejects_bad_urls_with_reasons() {
        for (url, needle) in [
            ("127.0.0.1:3000", "no scheme"),
            ("http://", "host is missing"),
            ("http://127.0.0.1:0/", "port"),
            ("http://127.0.0.1:99999/", "port"),
            ("http://127.0.0.1:x/", "port"),
            ("http://u@127.0.0.1/", "user"),
            ("http://[::1/", "closed"),
            ("http://::1/", "brackets"),
            ("http://127.0.0.1/a b", "percent-encode"),
        ] {
            let err = split_url(url).unwrap_err().to_string();
            assert!(err.contains(needle), "{url}: {err}");
        }
    }

    #[test]
    fn https_is_named_as_unsupported() {
        let err = split_url("https://127.0.0.1/").unwrap_err().to_string();
        assert!(err.contains("https is not supported"), "{err}");
        let err = split_url("ftp://127.0.0.1/").unwrap_err().to_string();
        assert!(err.contains("only http://"), "{err}");
    }

    #[test]
    fn loopback_only() {
        assert!(parse_target("http://127.0.0.1:1/").is_ok());
        assert!(parse_target("http://127.1.2.3:1/").is_ok());
        assert!(parse_target("http://[::1]:1/").is_ok());
        assert!(parse_target("http://[::ffff:127.0.0.1]:1/").is_ok());
        for url in [
            "http://10.0.0.1/",
            "http://192.168.1.1:80/",
            "http://0.0.0.0:80/",
            "http://[::]:80/",
            "http://8.8.8.8/",
        ] {
            let err = parse_target(url).unwrap_err();
            assert!(matches!(err, TargetError::NotLoopback { .. }), "{url}");
            assert!(err.to_string().contains("loopback"));
        }
    }

    #[test]
    fn an_address_named_twice_is_allowed_and_only_that_one() {
        let allowed: [AllowedHost; 1] = ["10.231.0.1".parse().unwrap()];
        let t = parse_target_allowing("http://10.231.0.1:8080/x", &allowed).unwrap();
        assert_eq!(t.addr, "10.231.0.1:8080".parse().unwrap());
        // Loopback stays allowed; any other address is still refused.
        assert!(parse_target_allowing("http://127.0.0.1:1/", &allowed).is_ok());
        let err = parse_target_allowing("http://10.231.0.2:8080/", &allowed).unwrap_err();
        assert!(err.to_string().contains("--allow-host"), "{err}");
    }

    #[test]
    fn an_allowed_name_covers_only_urls_that_spell_it() {
        let web: AllowedHost = "Web.Bench.svc".parse().unwrap();
        assert_eq!(web, AllowedHost::Name("web.bench.svc".into()));
        assert_eq!(
            "[::1]".parse::<AllowedHost>().unwrap(),
            AllowedHost::Addr("::1".parse().unwrap())
        );
        assert!("http://x".parse::<AllowedHost>().is_err());
        assert!("".parse::<AllowedHost>().is_err());
        // The name allows nothing for a URL that names an address.
        let err = parse_target_allowing("http://10.0.0.5:8080/", &[web]).unwrap_err();
        assert!(matches!(err, TargetError::NotLoopback { .. }), "{err}");
        assert_eq!(url_host("http://web.bench.svc:8080/x").unwrap(), "web.bench.svc");
        assert_eq!(url_host("http://[::1]:80/").unwrap(), "::1");
        assert!(url_host("ftp://x/").is_err());
    }

    #[test]
    fn localhost_resolves_to_loopback() {
        // Resolution of `localhost` comes from /etc/hosts, no network needed.
        let t = parse_target("http://localhost:8080/x").unwrap();
        assert!(t.addr.ip().is_loopback());
        assert_eq!(t.host_header, "localhost:8080");
    }
}
