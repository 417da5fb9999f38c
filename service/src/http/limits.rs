//! Rate limits per client address (tower_governor): login, registration and token attempts —
//! `POST /login`, `/register`, `/me/tokens`, `/api/accounts`, `/api/tokens` — and requests
//! with a token that opens nothing share one bucket per address: `[limits] auth_burst` at
//! once, then one every `auth_every_s`. Over it: 429 with words and `Retry-After`.
//!
//! The client's address is the socket's peer, or — only when the peer is one of
//! `trusted_proxies` — the right-most address of `X-Forwarded-For` that is not a trusted proxy
//! (the left part of that header is whatever the client wrote).

use crate::quota::RateConfig;
use axum::extract::connect_info::Connected;
use axum::extract::ConnectInfo;
use axum::http::{HeaderMap, Request, Response, StatusCode};
use axum::serve::IncomingStream;
use governor::middleware::NoOpMiddleware;
use ipnet::IpNet;
use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tower_governor::governor::{GovernorConfig, GovernorConfigBuilder};
use tower_governor::key_extractor::KeyExtractor;
use tower_governor::{GovernorError, GovernorLayer};

/// The address limits are counted against (see the module documentation). `peer`: the
/// socket's (none when the server was not given it: then one shared address).
pub fn client_ip(peer: Option<IpAddr>, headers: &HeaderMap, trusted: &[IpNet]) -> IpAddr {
    let Some(peer) = peer else {
        return IpAddr::V4(Ipv4Addr::UNSPECIFIED);
    };
    // An IPv4 client of a server listening on `[::]` is `::ffff:a.b.c.d`: as `a.b.c.d`.
    let peer = peer.to_canonical();
    let is_trusted = |ip: &IpAddr| trusted.iter().any(|n| n.contains(ip));
    if !is_trusted(&peer) {
        return peer;
    }
    let hops: Vec<&str> = headers
        .get_all("x-forwarded-for")
        .iter()
        .flat_map(|v| v.to_str().unwrap_or("").split(','))
        .map(str::trim)
        .collect();
    // From the right: the first that is not a trusted proxy is the client. A hop that is no
    // address stops the walk at the last trusted one (the proxy that saw it).
    let mut client = peer;
    for h in hops.iter().rev() {
        match h.parse::<IpAddr>().map(|ip| ip.to_canonical()) {
            Ok(ip) if is_trusted(&ip) => client = ip,
            Ok(ip) => return ip,
            Err(_) => break,
        }
    }
    client
}

/// tower_governor's key: [`client_ip`] of the request.
/// A connection's peer address, for [`ConnectInfo`] over any listener whose address is a
/// `SocketAddr` (plain TCP, or the TLS listener, `tls::server::TlsListener`).
#[derive(Clone, Copy, Debug)]
pub struct Peer(pub SocketAddr);

impl Connected<IncomingStream<'_, tokio::net::TcpListener>> for Peer {
    fn connect_info(stream: IncomingStream<'_, tokio::net::TcpListener>) -> Self {
        Peer(*stream.remote_addr())
    }
}

impl Connected<IncomingStream<'_, crate::tls::server::TlsListener>> for Peer {
    fn connect_info(stream: IncomingStream<'_, crate::tls::server::TlsListener>) -> Self {
        Peer(*stream.remote_addr())
    }
}

#[derive(Clone)]
pub struct ClientKey {
    trusted: Arc<Vec<IpNet>>,
}

impl KeyExtractor for ClientKey {
    type Key = IpAddr;
    fn extract<T>(&self, req: &Request<T>) -> Result<IpAddr, GovernorError> {
        let peer = req
            .extensions()
            .get::<ConnectInfo<Peer>>()
            .map(|c| c.0 .0.ip());
        Ok(client_ip(peer, req.headers(), &self.trusted))
    }
}

type Config = GovernorConfig<ClientKey, NoOpMiddleware>;

/// The layer on the routes of attempts.
pub type AttemptLimit = GovernorLayer<ClientKey, NoOpMiddleware, axum::body::Body>;

/// The server's limits: one bucket per address for all the attempts.
pub struct RateLimits {
    config: Arc<Config>,
    rate: RateConfig,
    /// Addresses over the limit, until when: a token they send is not even looked at.
    blocked: Mutex<HashMap<IpAddr, Instant>>,
}

impl RateLimits {
    pub fn new(rate: &RateConfig) -> Arc<RateLimits> {
        let config = GovernorConfigBuilder::default()
            .period(rate.every)
            .burst_size(rate.burst)
            // The forms' pages are read freely; what is sent to them is counted.
            .methods(vec![axum::http::Method::POST])
            .key_extractor(ClientKey {
                trusted: Arc::new(rate.trusted_proxies.clone()),
            })
            .finish()
            .expect("a burst and a period over 0 (checked in the configuration)");
        let limits = Arc::new(RateLimits {
            config: Arc::new(config),
            rate: rate.clone(),
            blocked: Mutex::new(HashMap::new()),
        });
        // Forget quiet addresses now and then, so the table does not grow for ever.
        let weak = Arc::downgrade(&limits);
        std::thread::Builder::new()
            .name("rate-limits".into())
            .spawn(move || loop {
                std::thread::sleep(Duration::from_secs(60));
                let Some(l) = weak.upgrade() else { break };
                l.config.limiter().retain_recent();
                l.config.limiter().shrink_to_fit();
                let now = Instant::now();
                l.blocked_map().retain(|_, until| *until > now);
            })
            .expect("thread");
        limits
    }

    fn blocked_map(&self) -> std::sync::MutexGuard<'_, HashMap<IpAddr, Instant>> {
        self.blocked.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The words of a 429.
    fn message(&self, ip: Option<IpAddr>, wait: u64) -> String {
        format!(
            "too many login, registration or token attempts from your address{}: try again in \
             {wait} s (this server allows {} at once, then one every {} s: [limits] \
             auth_burst and auth_every_s)",
            ip.map_or_else(String::new, |ip| format!(" ({ip})")),
            self.rate.burst,
            self.rate.every.as_secs()
        )
    }

    /// The layer for API routes (a JSON answer) or pages (an HTML one).
    pub fn layer(self: &Arc<Self>, html: bool) -> AttemptLimit {
        let me = self.clone();
        GovernorLayer::new(self.config.clone()).error_handler(move |e| me.refusal(e, html))
    }

    fn refusal(&self, e: GovernorError, html: bool) -> Response<axum::body::Body> {
        let wait = match e {
            GovernorError::TooManyRequests { wait_time, .. } => wait_time.max(1),
            other => {
                return Response::builder()
                    .status(StatusCode::INTERNAL_SERVER_ERROR)
                    .body(other.to_string().into())
                    .expect("response")
            }
        };
        too_many(&self.message(None, wait), wait, html)
    }

    /// A request carried a token that opens nothing: it counts as an attempt. `Err(seconds)`
    /// when the address is over the limit now.
    pub fn bad_token(&self, ip: IpAddr) -> Result<(), u64> {
        use governor::clock::{Clock, DefaultClock};
        match self.config.limiter().check_key(&ip) {
            Ok(()) => Ok(()),
            Err(not_until) => {
                let wait = not_until
                    .wait_time_from(DefaultClock::default().now())
                    .as_secs()
                    .max(1);
                self.blocked_map()
                    .insert(ip, Instant::now() + Duration::from_secs(wait));
                Err(wait)
            }
        }
    }

    /// Whether the address is over the limit now (then no token of it is looked at):
    /// `Some(seconds)` to wait.
    pub fn blocked(&self, ip: IpAddr) -> Option<u64> {
        let until = *self.blocked_map().get(&ip)?;
        let left = until.checked_duration_since(Instant::now())?;
        Some(left.as_secs().max(1))
    }

    /// The address of a request's parts.
    pub fn ip_of(&self, parts: &axum::http::request::Parts) -> IpAddr {
        let peer = parts
            .extensions
            .get::<ConnectInfo<Peer>>()
            .map(|c| c.0 .0.ip());
        client_ip(peer, &parts.headers, &self.rate.trusted_proxies)
    }

    /// The 429 of a token attempt over the limit, as JSON.
    pub fn api_error(&self, ip: IpAddr, wait: u64) -> super::ApiError {
        super::ApiError::new(429, self.message(Some(ip), wait)).retry_after(Some(wait))
    }
}

/// A 429 with `Retry-After`: JSON (`{"error", "retry_after_s"}`) or a page.
fn too_many(message: &str, wait: u64, html: bool) -> Response<axum::body::Body> {
    use axum::response::IntoResponse;
    if html {
        let mut r = super::pages::error_page(429, &super::Visitor::default(), message);
        r.headers_mut()
            .insert(axum::http::header::RETRY_AFTER, wait.into());
        return r;
    }
    super::ApiError::new(429, message)
        .retry_after(Some(wait))
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nets(v: &[&str]) -> Vec<IpNet> {
        v.iter().map(|s| s.parse().unwrap()).collect()
    }

    fn xff(v: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert("x-forwarded-for", v.parse().unwrap());
        h
    }

    #[test]
    fn forwarded_for_is_believed_only_from_a_trusted_proxy() {
        let peer: IpAddr = "203.0.113.9".parse().unwrap();
        let trusted = nets(&["127.0.0.1/32", "10.0.0.0/8"]);
        // An untrusted peer: its header is ignored.
        assert_eq!(client_ip(Some(peer), &xff("198.51.100.1"), &trusted), peer);
        // A trusted one: the right-most untrusted hop (the left ones are the client's words).
        let proxy: IpAddr = "127.0.0.1".parse().unwrap();
        let got = client_ip(
            Some(proxy),
            &xff("1.2.3.4, 198.51.100.7, 10.1.1.1"),
            &trusted,
        );
        assert_eq!(got, "198.51.100.7".parse::<IpAddr>().unwrap());
        // No header, or only proxies: the last proxy seen.
        assert_eq!(client_ip(Some(proxy), &HeaderMap::new(), &trusted), proxy);
        let got = client_ip(Some(proxy), &xff("10.2.2.2"), &trusted);
        assert_eq!(got, "10.2.2.2".parse::<IpAddr>().unwrap());
        // Garbage stops the walk.
        let got = client_ip(Some(proxy), &xff("198.51.100.7, nonsense"), &trusted);
        assert_eq!(got, proxy);
        // Nothing trusted (the default): the peer, whatever the header says.
        assert_eq!(client_ip(Some(proxy), &xff("198.51.100.7"), &[]), proxy);
        // A mapped IPv4 peer is the IPv4 address.
        let mapped: IpAddr = "::ffff:127.0.0.1".parse().unwrap();
        let got = client_ip(Some(mapped), &xff("198.51.100.7"), &trusted);
        assert_eq!(got, "198.51.100.7".parse::<IpAddr>().unwrap());
    }
}
