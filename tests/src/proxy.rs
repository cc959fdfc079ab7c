//! `FaultProxy`: a loopback TCP proxy between a `DynamoStore` and a DynamoDB-compatible server
//! that loses, delays, stalls, refuses and corrupts HTTP exchanges, so that the reliability tests
//! exercise the real SDK, its retries and its error mapping over the wire ([`crate::fault`] works
//! one level up, on the `Store` trait).
//!
//! Each connection carries one request: the proxy answers with `Connection: close` and closes, so
//! every request the SDK sends is seen, decided on and counted on its own. A request is matched by
//! its operation (the `X-Amz-Target` header without its `DynamoDB_20120810.` prefix: `PutItem`,
//! `TransactWriteItems`...). Queued rules ([`FaultProxy::inject`]) apply first, in order; then the
//! default fault ([`FaultProxy::set_default`], [`Fault::Forward`] to begin with).
//!
//! DynamoDB Streams requests go through it too (a `StreamsFeed` opened on the proxy's endpoint):
//! they carry `X-Amz-Target: DynamoDBStreams_20120810.GetRecords` and so on, and match by the same
//! operation names (`DescribeStream`, `GetShardIterator`, `GetRecords`); the Streams errors have
//! constructors ([`Fault::trimmed`], [`Fault::expired_iterator`], [`Fault::limit_exceeded`],
//! [`Fault::not_found`]).
//!
//! ```no_run
//! # async fn demo() {
//! use dyno_tests::proxy::{Fault, FaultProxy};
//! let proxy = FaultProxy::start("http://127.0.0.1:8000").await;
//! // The next PutItem reaches the server, which applies it, but its response is lost.
//! proxy.inject(Some("PutItem"), Fault::DropAfterForward, 1);
//! let store = dyno_core::DynamoStore::local(proxy.endpoint()).await;
//! # let _ = store; }
//! ```

use std::collections::{BTreeMap, VecDeque};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::{JoinHandle, JoinSet};

/// What the proxy does with one request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fault {
    /// Forward it and return the server's response.
    Forward,
    /// Wait, then forward it.
    Delay(Duration),
    /// Read the request and close the connection without forwarding it: nothing was applied.
    DropBeforeForward,
    /// Forward it, let the server apply it, and close the connection without answering: the
    /// response is lost.
    DropAfterForward,
    /// Read the request and never answer, nor forward it (the connection stays open).
    Stall,
    /// Answer with this HTTP status and DynamoDB error code, without forwarding.
    Error {
        /// HTTP status.
        status: u16,
        /// The `__type` error code (`InternalServerError`, `ThrottlingException`...).
        code: &'static str,
    },
    /// Forward it and return only the first bytes of the response, then close.
    Truncate(usize),
    /// Close the connection before reading anything (a server that was killed). As a queued
    /// rule it cannot know the operation: use it as the default.
    Refuse,
}

impl Fault {
    /// HTTP 500 `InternalServerError`.
    pub fn internal_error() -> Self {
        Fault::Error {
            status: 500,
            code: "InternalServerError",
        }
    }

    /// HTTP 503 `ServiceUnavailable`.
    pub fn unavailable() -> Self {
        Fault::Error {
            status: 503,
            code: "ServiceUnavailable",
        }
    }

    /// HTTP 400 `ThrottlingException`.
    pub fn throttling() -> Self {
        Fault::Error {
            status: 400,
            code: "ThrottlingException",
        }
    }

    /// HTTP 400 `LimitExceededException`: DynamoDB Streams' throttling (and DescribeStream's).
    pub fn limit_exceeded() -> Self {
        Fault::Error {
            status: 400,
            code: "LimitExceededException",
        }
    }

    /// HTTP 400 `TrimmedDataAccessException`: the records asked for were trimmed.
    pub fn trimmed() -> Self {
        Fault::Error {
            status: 400,
            code: "TrimmedDataAccessException",
        }
    }

    /// HTTP 400 `ExpiredIteratorException`: the shard iterator is older than 15 minutes.
    pub fn expired_iterator() -> Self {
        Fault::Error {
            status: 400,
            code: "ExpiredIteratorException",
        }
    }

    /// HTTP 400 `ResourceNotFoundException`: no such table, stream or shard.
    pub fn not_found() -> Self {
        Fault::Error {
            status: 400,
            code: "ResourceNotFoundException",
        }
    }

    /// True when the request reaches the server (so a write is applied).
    pub fn forwards(&self) -> bool {
        matches!(
            self,
            Fault::Forward | Fault::Delay(_) | Fault::DropAfterForward | Fault::Truncate(_)
        )
    }
}

#[derive(Debug)]
struct Rule {
    operation: Option<String>,
    fault: Fault,
    remaining: u32,
}

#[derive(Debug)]
struct State {
    rules: VecDeque<Rule>,
    default: Fault,
    /// Requests seen per operation, whatever was done with them.
    seen: BTreeMap<String, u64>,
    /// Requests forwarded to the server per operation.
    forwarded: BTreeMap<String, u64>,
}

/// A running proxy; stopped (with every connection it holds) when dropped.
#[derive(Debug)]
pub struct FaultProxy {
    endpoint: String,
    state: Arc<Mutex<State>>,
    task: JoinHandle<()>,
}

impl Drop for FaultProxy {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl FaultProxy {
    /// Starts a proxy on a free loopback port in front of `upstream` (`http://127.0.0.1:PORT`).
    ///
    /// # Panics
    /// When `upstream` is not `http://HOST:PORT` or no loopback port can be bound.
    pub async fn start(upstream: &str) -> FaultProxy {
        let upstream: SocketAddr = upstream
            .trim()
            .trim_start_matches("http://")
            .trim_end_matches('/')
            .parse()
            .unwrap_or_else(|e| {
                panic!("FaultProxy: upstream {upstream:?} is not http://IP:PORT: {e}")
            });
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .expect("FaultProxy: bind a loopback port");
        let endpoint = format!("http://{}", listener.local_addr().expect("local address"));
        let state = Arc::new(Mutex::new(State {
            rules: VecDeque::new(),
            default: Fault::Forward,
            seen: BTreeMap::new(),
            forwarded: BTreeMap::new(),
        }));
        let shared = state.clone();
        let task = tokio::spawn(async move {
            // Dropping the set (when the task is aborted) aborts every connection task.
            let mut connections = JoinSet::new();
            while let Ok((socket, _)) = listener.accept().await {
                connections.spawn(serve(socket, upstream, shared.clone()));
                while connections.try_join_next().is_some() {}
            }
        });
        FaultProxy {
            endpoint,
            state,
            task,
        }
    }

    /// The URL to give `DynamoStore`.
    pub fn endpoint(&self) -> &str {
        &self.endpoint
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The next `times` requests of `operation` (any operation when `None`) meet `fault`. Rules
    /// queue up and apply in order.
    pub fn inject(&self, operation: Option<&str>, fault: Fault, times: u32) {
        if times > 0 {
            self.state().rules.push_back(Rule {
                operation: operation.map(str::to_owned),
                fault,
                remaining: times,
            });
        }
    }

    /// What happens to requests no queued rule matches.
    pub fn set_default(&self, fault: Fault) {
        self.state().default = fault;
    }

    /// Drops every queued rule and forwards everything again.
    pub fn heal(&self) {
        let mut s = self.state();
        s.rules.clear();
        s.default = Fault::Forward;
    }

    /// Requests of `operation` seen so far.
    pub fn seen(&self, operation: &str) -> u64 {
        self.state().seen.get(operation).copied().unwrap_or(0)
    }

    /// Requests of `operation` forwarded to the server so far.
    pub fn forwarded(&self, operation: &str) -> u64 {
        self.state().forwarded.get(operation).copied().unwrap_or(0)
    }

    /// True when no queued rule is left.
    pub fn rules_used_up(&self) -> bool {
        self.state().rules.is_empty()
    }
}

impl State {
    fn decide(&mut self, operation: &str) -> Fault {
        *self.seen.entry(operation.to_owned()).or_default() += 1;
        let at = self
            .rules
            .iter()
            .position(|r| r.operation.as_deref().is_none_or(|o| o == operation));
        let fault = match at {
            Some(i) => {
                let rule = &mut self.rules[i];
                rule.remaining -= 1;
                let fault = rule.fault.clone();
                if rule.remaining == 0 {
                    self.rules.remove(i);
                }
                fault
            }
            None => self.default.clone(),
        };
        if fault.forwards() {
            *self.forwarded.entry(operation.to_owned()).or_default() += 1;
        }
        fault
    }
}

/// One HTTP request as read: the head (request line and headers) and the body.
#[derive(Debug)]
pub struct Request {
    /// The request line and headers, with the blank line after them.
    pub head: String,
    /// The body (`Content-Length` bytes).
    pub body: Vec<u8>,
}

impl Request {
    /// The value of header `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.head.lines().skip(1).find_map(|line| {
            let (k, v) = line.split_once(':')?;
            k.trim().eq_ignore_ascii_case(name).then(|| v.trim())
        })
    }

    /// The bytes to send upstream: the same request with `Connection: close`.
    fn to_upstream(&self) -> Vec<u8> {
        let mut out = close_connection(&self.head).into_bytes();
        out.extend_from_slice(&self.body);
        out
    }
}

/// `head` (without its final blank line) with any `Connection` header replaced by
/// `Connection: close`, and the blank line.
fn close_connection(head: &str) -> String {
    let mut out = String::with_capacity(head.len() + 24);
    for line in head.split("\r\n").filter(|l| !l.is_empty()) {
        let is_connection = line
            .split_once(':')
            .is_some_and(|(k, _)| k.trim().eq_ignore_ascii_case("connection"));
        if !is_connection {
            out.push_str(line);
            out.push_str("\r\n");
        }
    }
    out.push_str("Connection: close\r\n\r\n");
    out
}

fn find_head_end(buf: &[u8]) -> Option<usize> {
    buf.windows(4).position(|w| w == b"\r\n\r\n").map(|i| i + 4)
}

/// Reads one HTTP/1.1 request (head and `Content-Length` body); `None` when the client closed
/// the connection first. Also used by the tests' fake servers.
pub async fn read_request(socket: &mut TcpStream) -> std::io::Result<Option<Request>> {
    let mut buf = Vec::with_capacity(4096);
    let mut chunk = [0u8; 8192];
    let head_end = loop {
        if let Some(end) = find_head_end(&buf) {
            break end;
        }
        let n = socket.read(&mut chunk).await?;
        if n == 0 {
            return Ok(None);
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let mut request = Request {
        head,
        body: Vec::new(),
    };
    let length: usize = request
        .header("content-length")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    while buf.len() < head_end + length {
        let n = socket.read(&mut chunk).await?;
        if n == 0 {
            return Ok(None);
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    request.body = buf[head_end..head_end + length].to_vec();
    Ok(Some(request))
}

/// Sends the request to the server and reads its whole response (the server closes after it),
/// rewritten to say `Connection: close`.
async fn forward(request: &Request, upstream: SocketAddr) -> std::io::Result<Vec<u8>> {
    let mut server = TcpStream::connect(upstream).await?;
    server.write_all(&request.to_upstream()).await?;
    let mut response = Vec::new();
    server.read_to_end(&mut response).await?;
    Ok(match find_head_end(&response) {
        Some(end) => {
            let head = String::from_utf8_lossy(&response[..end]).into_owned();
            let mut out = close_connection(&head).into_bytes();
            out.extend_from_slice(&response[end..]);
            out
        }
        None => response,
    })
}

fn error_response(status: u16, code: &str) -> Vec<u8> {
    let body = format!(
        r#"{{"__type":"com.amazonaws.dynamodb.v20120810#{code}","message":"injected by FaultProxy"}}"#
    );
    let reason = match status {
        400 => "Bad Request",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        _ => "Error",
    };
    format!(
        "HTTP/1.1 {status} {reason}\r\nContent-Type: application/x-amz-json-1.0\r\n\
         x-amzn-RequestId: fault-proxy\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

async fn serve(mut client: TcpStream, upstream: SocketAddr, state: Arc<Mutex<State>>) {
    let refuse = {
        let s = state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        s.default == Fault::Refuse && s.rules.is_empty()
    };
    if refuse {
        return;
    }
    let Ok(Some(request)) = read_request(&mut client).await else {
        return;
    };
    let operation = request
        .header("x-amz-target")
        .map(|t| t.rsplit('.').next().unwrap_or(t).to_owned())
        .unwrap_or_default();
    let fault = state
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .decide(&operation);
    let _ = match fault {
        Fault::Forward => respond(&mut client, forward(&request, upstream).await).await,
        Fault::Delay(d) => {
            tokio::time::sleep(d).await;
            respond(&mut client, forward(&request, upstream).await).await
        }
        Fault::DropBeforeForward | Fault::Refuse => Ok(()),
        Fault::DropAfterForward => forward(&request, upstream).await.map(drop),
        Fault::Stall => {
            std::future::pending::<()>().await;
            Ok(())
        }
        Fault::Error { status, code } => client.write_all(&error_response(status, code)).await,
        Fault::Truncate(n) => match forward(&request, upstream).await {
            Ok(response) => client.write_all(&response[..n.min(response.len())]).await,
            Err(e) => Err(e),
        },
    };
    let _ = client.shutdown().await;
}

async fn respond(
    client: &mut TcpStream,
    response: std::io::Result<Vec<u8>>,
) -> std::io::Result<()> {
    match response {
        Ok(bytes) => client.write_all(&bytes).await,
        // The server is unreachable: the client sees its connection closed.
        Err(e) => Err(e),
    }
}
