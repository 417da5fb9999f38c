//! HTTP as the service's tests speak it by hand: a body streamed without end, the server's
//! peak memory, links of a page resolved (`tests/serve_access.rs`).

use super::server::Server;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

/// The server's peak resident memory (`VmHWM`), in bytes.
pub fn peak_rss(s: &Server) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{}/status", s.child.id())).unwrap();
    let kb: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .expect("VmHWM");
    kb * 1024
}

/// POST `total` bytes to `path` in chunks as fast as the server takes them, and read the
/// answer's status line meanwhile: (status, how long it took, bytes sent).
pub fn stream_post(
    s: &Server,
    path: &str,
    headers: &str,
    prefix: &str,
    total: usize,
) -> (u16, Duration, usize) {
    let addr = s.url.trim_start_matches("http://").to_string();
    let c = TcpStream::connect(&addr).unwrap();
    c.set_read_timeout(Some(Duration::from_secs(120))).unwrap();
    let mut w = c.try_clone().unwrap();
    write!(
        w,
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\n{headers}Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    if !prefix.is_empty() {
        write!(w, "{:x}\r\n{prefix}\r\n", prefix.len()).unwrap();
    }
    let start = Instant::now();
    let writer = std::thread::spawn(move || {
        let chunk = vec![b'a'; 64 << 10];
        let mut sent = 0;
        while sent < total {
            if write!(w, "{:x}\r\n", chunk.len()).is_err()
                || w.write_all(&chunk).is_err()
                || w.write_all(b"\r\n").is_err()
            {
                break;
            }
            sent += chunk.len();
        }
        let _ = w.write_all(b"0\r\n\r\n");
        sent
    });
    let mut r = BufReader::new(c.try_clone().unwrap());
    let mut line = String::new();
    r.read_line(&mut line).expect("a status line");
    let took = start.elapsed();
    let _ = c.shutdown(std::net::Shutdown::Both);
    let sent = writer.join().unwrap();
    let status = line.split(' ').nth(1).unwrap_or("0").parse().unwrap_or(0);
    (status, took, sent)
}

/// `href` of the page `from`, as a path of the server (`None`: elsewhere, or an anchor).
pub fn resolve(from: &str, href: &str) -> Option<String> {
    let href = href.split(['#', '?']).next()?;
    if href.is_empty() || href.contains(':') {
        return None;
    }
    let joined = if href.starts_with('/') {
        href.to_string()
    } else {
        format!("{}{href}", &from[..from.rfind('/')? + 1])
    };
    let mut parts: Vec<&str> = Vec::new();
    for p in joined.split('/') {
        match p {
            ".." => {
                parts.pop();
            }
            "." | "" => {}
            p => parts.push(p),
        }
    }
    Some(format!("/{}", parts.join("/")))
}
