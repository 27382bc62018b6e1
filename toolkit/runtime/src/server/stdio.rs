//! The stdio transport of [`Server::serve_stdio`](super::Server::serve_stdio): newline-delimited
//! JSON-RPC over a reader and a writer (stdin and stdout), as rmcp's own transport speaks it,
//! with three differences:
//! - a line that is not JSON gets a parse error (-32700), and JSON that is not a message gets
//!   -32600 or -32602 with the request's id, instead of silence or an id-less error;
//! - backpressure: once [`MAX_PENDING`] requests wait for their replies to be written (a client
//!   that stopped reading stdout), no further line is read until replies drain. rmcp would
//!   otherwise read on, run every request and hold every reply in memory;
//! - a line longer than [`MAX_LINE`] is skipped (never held whole) and answered -32600.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use rmcp::RoleServer;
use rmcp::model::{ClientNotification, ErrorData, JsonRpcMessage, RequestId};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::Notify;

use super::jsonrpc;

/// Requests read whose replies are not yet written, beyond which reading pauses.
pub const MAX_PENDING: usize = 128;
/// The longest line accepted (rmcp's limit too); a longer one is skipped with an error.
pub const MAX_LINE: usize = 16 * 1024 * 1024;

/// A server transport over `read` and `write`.
pub struct LineTransport<R, W> {
    read: BufReader<R>,
    line: Vec<u8>,
    /// Skipping the rest of an oversized line (kept here: `receive` may be cancelled mid-line).
    discarding: bool,
    out: Arc<tokio::sync::Mutex<W>>,
    pending: Arc<Pending>,
}

/// What is owed to the client: ids of requests not yet answered, and error replies of the
/// transport's own not yet written.
#[derive(Default)]
struct Pending {
    requests: Mutex<HashSet<RequestId>>,
    own_replies: Mutex<usize>,
    drained: Notify,
}

impl Pending {
    fn len(&self) -> usize {
        lock(&self.requests).len() + *lock(&self.own_replies)
    }

    /// Waits until fewer than `limit` replies are owed.
    async fn below(&self, limit: usize) {
        loop {
            let drained = self.drained.notified();
            if self.len() < limit {
                return;
            }
            drained.await;
        }
    }

    fn answered(&self, id: &RequestId) {
        if lock(&self.requests).remove(id) {
            self.drained.notify_one();
        }
    }

    fn own_reply_written(&self) {
        *lock(&self.own_replies) -= 1;
        self.drained.notify_one();
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

enum LineRead {
    Line,
    Oversized,
    Eof,
    Failed(std::io::Error),
}

impl<R, W> LineTransport<R, W>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    /// Reads messages from `read` and writes replies to `write`.
    pub fn new(read: R, write: W) -> Self {
        LineTransport {
            read: BufReader::new(read),
            line: Vec::new(),
            discarding: false,
            out: Arc::new(tokio::sync::Mutex::new(write)),
            pending: Arc::default(),
        }
    }

    /// Reads up to a newline into `self.line`, never holding more than [`MAX_LINE`] bytes.
    /// Cancel-safe: a partial line stays in `self.line` for the next call.
    async fn read_line(&mut self) -> LineRead {
        loop {
            let available = match self.read.fill_buf().await {
                Ok([]) => return LineRead::Eof,
                Ok(available) => available,
                Err(e) => return LineRead::Failed(e),
            };
            let newline = available.iter().position(|b| *b == b'\n');
            let take = newline.map_or(available.len(), |at| at + 1);
            let mut oversized = false;
            if self.discarding {
                self.discarding = newline.is_none();
            } else if self.line.len() + take > MAX_LINE {
                self.line.clear();
                self.discarding = newline.is_none();
                oversized = true;
            } else {
                self.line.extend_from_slice(&available[..take]);
            }
            self.read.consume(take);
            if oversized {
                return LineRead::Oversized;
            }
            if newline.is_some() && !self.discarding && !self.line.is_empty() {
                return LineRead::Line;
            }
        }
    }

    /// Answers a line the transport could not hand to rmcp; written by a task of its own so a
    /// cancelled `receive` never leaves half a line on the wire.
    fn reply(&self, id: Option<RequestId>, error: ErrorData) {
        *lock(&self.pending.own_replies) += 1;
        let (out, pending) = (Arc::clone(&self.out), Arc::clone(&self.pending));
        tokio::spawn(async move {
            if let Err(e) = write_line(&out, jsonrpc::error_response(id, error)).await {
                tracing::debug!(error = %e, "could not write an error reply");
            }
            pending.own_reply_written();
        });
    }

    /// The message in `line`, or `None` after answering (or ignoring) what it is not.
    fn decode(&mut self, line: &[u8]) -> Option<RxJsonRpcMessage<RoleServer>> {
        let line = line.strip_suffix(b"\n").unwrap_or(line);
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
        if line.trim_ascii().is_empty() {
            return None;
        }
        let error = match serde_json::from_slice::<RxJsonRpcMessage<RoleServer>>(line) {
            Ok(message) => return Some(message),
            Err(e) => e,
        };
        match serde_json::from_slice::<serde_json::Value>(line) {
            Err(e) => self.reply(None, jsonrpc::parse_error(&e, "line")),
            Ok(value) => {
                if let Some((id, reply)) = jsonrpc::invalid_message(&value, &error.to_string()) {
                    self.reply(id, reply);
                }
            }
        }
        None
    }
}

async fn write_line<W: AsyncWrite + Unpin>(out: &tokio::sync::Mutex<W>, mut bytes: Vec<u8>) -> std::io::Result<()> {
    bytes.push(b'\n');
    let mut out = out.lock().await;
    out.write_all(&bytes).await?;
    out.flush().await
}

impl<R, W> Transport<RoleServer> for LineTransport<R, W>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let answers = match &item {
            JsonRpcMessage::Response(response) => Some(response.id.clone()),
            JsonRpcMessage::Error(error) => error.id.clone(),
            _ => None,
        };
        let (out, pending) = (Arc::clone(&self.out), Arc::clone(&self.pending));
        async move {
            let written = match serde_json::to_vec(&item) {
                Ok(bytes) => write_line(&out, bytes).await,
                Err(e) => Err(e.into()),
            };
            if let Some(id) = answers {
                pending.answered(&id);
            }
            written
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            self.pending.below(MAX_PENDING).await;
            match self.read_line().await {
                LineRead::Line => {}
                LineRead::Oversized => {
                    let why = format!("Invalid Request: the message is longer than {MAX_LINE} bytes and was skipped.");
                    self.reply(None, ErrorData::invalid_request(why, None));
                    continue;
                }
                LineRead::Eof => return None,
                LineRead::Failed(e) => {
                    tracing::error!(error = %e, "reading stdin failed");
                    return None;
                }
            }
            let line = std::mem::take(&mut self.line);
            let message = self.decode(&line);
            self.line = line;
            self.line.clear();
            match &message {
                Some(JsonRpcMessage::Request(request)) => {
                    lock(&self.pending.requests).insert(request.id.clone());
                }
                Some(JsonRpcMessage::Notification(n)) => {
                    // A cancelled request gets no reply: stop waiting for one.
                    if let ClientNotification::CancelledNotification(c) = &n.notification
                        && let Some(id) = &c.params.request_id
                    {
                        self.pending.answered(id);
                    }
                }
                _ => {}
            }
            if message.is_some() {
                return message;
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.out.lock().await.flush().await
    }
}
