//! Whether a process here listens on a port itself: the address bench loads
//! must be the row server's own listening socket, not one its banner merely
//! names (another server's, on this machine). Read from /proc: the kernel's
//! TCP tables give the inode of each socket listening on the port, and the
//! process's descriptors say which sockets it holds.

use std::collections::HashSet;

/// State `0A` in /proc/net/tcp: LISTEN.
const LISTEN: &str = "0A";

/// Whether process `pid` holds a socket listening on TCP `port` (IPv4 or
/// IPv6); `None` when /proc cannot tell (not Linux, or the process is gone).
pub fn listens_on(pid: u32, port: u16) -> Option<bool> {
    let mut listening = HashSet::new();
    let mut read_any = false;
    for table in ["tcp", "tcp6"] {
        let Ok(text) = std::fs::read_to_string(format!("/proc/{pid}/net/{table}")) else {
            continue;
        };
        read_any = true;
        listening.extend(listening_inodes(&text, port));
    }
    if !read_any {
        return None;
    }
    let descriptors = std::fs::read_dir(format!("/proc/{pid}/fd")).ok()?;
    Some(descriptors.flatten().any(|fd| {
        std::fs::read_link(fd.path())
            .ok()
            .and_then(|target| socket_inode(&target.to_string_lossy()))
            .is_some_and(|inode| listening.contains(&inode))
    }))
}

/// The inodes of the sockets a /proc/net/tcp(6) table lists as listening
/// on `port`.
fn listening_inodes(table: &str, port: u16) -> Vec<u64> {
    table
        .lines()
        .skip(1)
        .filter_map(|line| {
            // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
            let fields: Vec<&str> = line.split_whitespace().collect();
            let local_port = fields.get(1)?.rsplit_once(':')?.1;
            let listening = u16::from_str_radix(local_port, 16).ok()? == port && *fields.get(3)? == LISTEN;
            listening.then(|| fields.get(9)?.parse().ok()).flatten()
        })
        .collect()
}

/// `socket:[12345]` → 12345.
fn socket_inode(link: &str) -> Option<u64> {
    link.strip_prefix("socket:[")?.strip_suffix(']')?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_process_listens_on_its_own_port_and_not_on_another() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = listener.local_addr().expect("address").port();
        let me = std::process::id();
        assert_eq!(listens_on(me, port), Some(true));
        drop(listener);
        assert_eq!(listens_on(me, port), Some(false));
    }

    #[test]
    fn a_connected_socket_is_not_a_listening_one() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = listener.local_addr().expect("address").port();
        // The client's socket is connected to the port, not listening on it;
        // the table lists it under its own local port anyway.
        let _client = std::net::TcpStream::connect(("127.0.0.1", port)).expect("connect");
        let table = std::fs::read_to_string("/proc/self/net/tcp").expect("/proc/self/net/tcp");
        assert_eq!(listening_inodes(&table, port).len(), 1, "{table}");
    }

    #[test]
    fn socket_links_give_their_inode() {
        assert_eq!(socket_inode("socket:[8761]"), Some(8761));
        assert_eq!(socket_inode("pipe:[8761]"), None);
        assert_eq!(socket_inode("/dev/null"), None);
    }
}
