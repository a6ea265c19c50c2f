//! The line transport of stdio (and of any byte stream: a socket, an in-process duplex):
//! newline-delimited JSON-RPC with backpressure and an answer for every bad line.
//!
//! Three parts. A reader task reads bounded lines ([`MAX_LINE_BYTES`]; a longer one is
//! discarded as it arrives, never buffered whole) and decodes them (`wire`): messages go to rmcp,
//! bad lines get their error answer at once. A writer task owns the output and writes each
//! queued line. Between them, at most [`MAX_IN_FLIGHT`] requests are open at once: the reader
//! takes a slot before it reads a line, and a request's slot is given back only when its answer
//! has been written. A client that sends requests but never reads the answers therefore stops
//! being read after a bounded number of them, instead of making the server queue answers until
//! it runs out of memory; reading resumes as soon as it reads again.
//!
//! Nothing here knows what a request means beyond its id: rmcp dispatches every message.

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use rmcp::RoleServer;
use rmcp::model::{ClientJsonRpcMessage, ClientNotification, ClientRequest, RequestId, ServerJsonRpcMessage};
use rmcp::transport::Transport;
use tokio::io::{AsyncBufReadExt as _, AsyncRead, AsyncWrite, AsyncWriteExt as _, BufReader};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc};
use tokio::task::JoinHandle;

use super::wire::{self, Line, MAX_LINE_BYTES};

/// Requests read whose answers are not yet written. Past it, nothing more is read.
pub(crate) const MAX_IN_FLIGHT: usize = 32;

/// Read buffer: big enough that a burst of small requests costs few reads.
const READ_BUFFER: usize = 64 * 1024;

/// How long closing waits for queued answers to reach a client that does not read them.
const CLOSE_TIMEOUT: Duration = Duration::from_secs(5);

/// One line to write, holding the in-flight slot of the request it answers (if any) until it
/// is written.
struct Outgoing {
    bytes: Vec<u8>,
    _slot: Option<OwnedSemaphorePermit>,
}

/// A message read, holding the slot the reader took for it.
type Incoming = (ClientJsonRpcMessage, OwnedSemaphorePermit);

/// The rmcp transport over a reader and a writer of lines. Create it inside a Tokio runtime.
pub(crate) struct LineTransport {
    incoming: mpsc::Receiver<Incoming>,
    outgoing: Option<mpsc::Sender<Outgoing>>,
    /// The slot of every request read and not yet answered, by id.
    open: BTreeMap<OpenId, OwnedSemaphorePermit>,
    reader: JoinHandle<()>,
    writer: Option<JoinHandle<()>>,
}

impl LineTransport {
    /// Starts the reader and writer tasks.
    pub(crate) fn new<R, W>(read: R, write: W) -> Self
    where
        R: AsyncRead + Send + Unpin + 'static,
        W: AsyncWrite + Send + Unpin + 'static,
    {
        let slots = Arc::new(Semaphore::new(MAX_IN_FLIGHT));
        let (out_tx, out_rx) = mpsc::channel(MAX_IN_FLIGHT);
        let (in_tx, in_rx) = mpsc::channel(1);
        let reader = tokio::spawn(read_lines(LineReader::new(read), slots, in_tx, out_tx.clone()));
        let writer = tokio::spawn(write_lines(write, out_rx));
        LineTransport {
            incoming: in_rx,
            outgoing: Some(out_tx),
            open: BTreeMap::new(),
            reader,
            writer: Some(writer),
        }
    }
}

impl Transport<RoleServer> for LineTransport {
    type Error = std::io::Error;

    fn send(
        &mut self,
        mut item: ServerJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        if let ServerJsonRpcMessage::Error(e) = &mut item {
            super::errors::cap_echoes(&mut e.error);
        }
        // The answer takes over its request's slot: it is freed once the answer is written.
        let slot = match &item {
            ServerJsonRpcMessage::Response(r) => self.open.remove(&OpenId::of(&r.id)),
            ServerJsonRpcMessage::Error(e) => e.id.as_ref().and_then(|id| self.open.remove(&OpenId::of(id))),
            _ => None,
        };
        // Serialized now, so a queued answer costs its bytes and nothing more.
        let line = to_line(&item);
        let outgoing = self.outgoing.clone();
        async move {
            let bytes = line?;
            let outgoing = outgoing.ok_or_else(closed)?;
            outgoing.send(Outgoing { bytes, _slot: slot }).await.map_err(|_| closed())
        }
    }

    async fn receive(&mut self) -> Option<ClientJsonRpcMessage> {
        // `recv` is cancel-safe: rmcp polls this inside a `select!`.
        let (message, slot) = self.incoming.recv().await?;
        match &message {
            // A listen stream stays open until cancelled and answers nothing meanwhile: it
            // holds no slot, or a few of them would stop the reader for good.
            ClientJsonRpcMessage::Request(r)
                if !matches!(r.request, ClientRequest::SubscriptionsListenRequest(_)) =>
            {
                // A repeated id: rmcp answers it once, so it keeps one slot.
                self.open.insert(OpenId::of(&r.id), slot);
            }
            // rmcp drops the answer of a cancelled request: free its slot now.
            ClientJsonRpcMessage::Notification(n) => {
                if let ClientNotification::CancelledNotification(c) = &n.notification
                    && let Some(id) = &c.params.request_id
                {
                    self.open.remove(&OpenId::of(id));
                }
            }
            _ => {}
        }
        Some(message)
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.reader.abort();
        self.open.clear();
        // The writer ends once every sender is gone and the queue is written; a client that
        // does not read gets a bounded wait, not a hang.
        self.outgoing = None;
        if let Some(mut writer) = self.writer.take()
            && tokio::time::timeout(CLOSE_TIMEOUT, &mut writer).await.is_err()
        {
            tracing::warn!("the client did not read the last answers; dropping them");
            writer.abort();
        }
        Ok(())
    }
}

impl Drop for LineTransport {
    fn drop(&mut self) {
        self.reader.abort();
    }
}

/// A request id as a map key (rmcp's id type is not ordered).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum OpenId {
    Number(i64),
    String(Arc<str>),
}

impl OpenId {
    fn of(id: &RequestId) -> OpenId {
        match id {
            RequestId::Number(n) => OpenId::Number(*n),
            RequestId::String(s) => OpenId::String(s.clone()),
        }
    }
}

fn closed() -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::NotConnected, "the output stream is closed")
}

fn to_line(message: &ServerJsonRpcMessage) -> std::io::Result<Vec<u8>> {
    let mut bytes = serde_json::to_vec(message)?;
    bytes.push(b'\n');
    Ok(bytes)
}

/// The reader task: a slot, then a line, until EOF, an IO error or the output closing.
async fn read_lines<R: AsyncRead + Unpin>(
    mut lines: LineReader<R>,
    slots: Arc<Semaphore>,
    incoming: mpsc::Sender<Incoming>,
    outgoing: mpsc::Sender<Outgoing>,
) {
    loop {
        // Backpressure: wait here, before reading, while MAX_IN_FLIGHT requests are open.
        let Ok(slot) = slots.clone().acquire_owned().await else { return };
        let read = tokio::select! {
            read = lines.next() => read,
            // Nobody can be answered any more: stop reading.
            () = outgoing.closed() => return,
        };
        let answer = match read {
            Read::Line => match wire::decode(lines.line()) {
                Line::Blank | Line::Ignored => continue,
                Line::Message(message) => {
                    if incoming.send((*message, slot)).await.is_err() {
                        return;
                    }
                    continue;
                }
                Line::Reply(answer) => *answer,
            },
            Read::TooLong => {
                tracing::warn!(max = MAX_LINE_BYTES, "discarded a line over the length limit");
                wire::too_long(lines.line())
            }
            Read::Eof => return,
            Read::Failed(e) => {
                tracing::error!(error = %e, "cannot read the input stream");
                return;
            }
        };
        let Ok(bytes) = to_line(&answer) else { continue };
        if outgoing.send(Outgoing { bytes, _slot: Some(slot) }).await.is_err() {
            return;
        }
    }
}

/// The writer task: writes each queued line, flushing whenever the queue runs empty.
async fn write_lines<W: AsyncWrite + Unpin>(mut write: W, mut queue: mpsc::Receiver<Outgoing>) {
    while let Some(first) = queue.recv().await {
        let mut next = Some(first);
        while let Some(line) = next {
            if let Err(e) = write.write_all(&line.bytes).await {
                tracing::debug!(error = %e, "the output stream closed");
                return;
            }
            // The line is out: its slot (dropped with it) lets the reader go on.
            drop(line);
            next = queue.try_recv().ok();
        }
        if let Err(e) = write.flush().await {
            tracing::debug!(error = %e, "the output stream closed");
            return;
        }
    }
    let _ = write.shutdown().await;
}

/// What [`LineReader::next`] found.
enum Read {
    /// A whole line (without its `\n`) is in [`LineReader::line`].
    Line,
    /// A line over [`MAX_LINE_BYTES`] was discarded; [`LineReader::line`] holds its first bytes.
    TooLong,
    /// The input ended (a last line without `\n` is dropped: it may be cut off).
    Eof,
    /// The input failed.
    Failed(std::io::Error),
}

/// Reads `\n`-terminated lines through a fixed buffer, never holding more than
/// [`MAX_LINE_BYTES`] of one line.
struct LineReader<R> {
    read: BufReader<R>,
    line: Vec<u8>,
    /// Bytes of the current line seen so far (kept or not).
    seen: usize,
}

impl<R: AsyncRead + Unpin> LineReader<R> {
    fn new(read: R) -> Self {
        LineReader { read: BufReader::with_capacity(READ_BUFFER, read), line: Vec::new(), seen: 0 }
    }

    /// The line [`LineReader::next`] last found (or the kept start of a discarded one).
    fn line(&self) -> &[u8] {
        &self.line
    }

    async fn next(&mut self) -> Read {
        // A huge previous line should not pin its memory.
        if self.line.capacity() > 4 * READ_BUFFER {
            self.line = Vec::new();
        }
        self.line.clear();
        self.seen = 0;
        loop {
            let available = match self.read.fill_buf().await {
                Ok([]) => return Read::Eof,
                Ok(available) => available,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Read::Failed(e),
            };
            let newline = available.iter().position(|&b| b == b'\n');
            let chunk = &available[..newline.unwrap_or(available.len())];
            // Keep what fits under the limit; past it, only count (the start stays, for the id).
            let room = MAX_LINE_BYTES.saturating_sub(self.line.len());
            self.line.extend_from_slice(&chunk[..chunk.len().min(room)]);
            self.seen = self.seen.saturating_add(chunk.len());
            let consumed = newline.map_or(available.len(), |i| i + 1);
            self.read.consume(consumed);
            if newline.is_some() {
                return if self.seen > MAX_LINE_BYTES { Read::TooLong } else { Read::Line };
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    async fn lines_of(input: Vec<u8>) -> Vec<String> {
        let mut reader = LineReader::new(std::io::Cursor::new(input));
        let mut out = Vec::new();
        loop {
            match reader.next().await {
                Read::Line => out.push(String::from_utf8_lossy(reader.line()).into_owned()),
                Read::TooLong => out.push(format!("too long, kept {}", reader.line().len())),
                Read::Eof => return out,
                Read::Failed(e) => panic!("{e}"),
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(128))]

        /// Any bytes, read through a reader that hands them over a few at a time, come out as
        /// exactly the `\n`-separated lines (an unterminated tail is dropped).
        #[test]
        fn lines_are_exactly_the_newline_separated_pieces(
            input in proptest::collection::vec(prop_oneof![Just(b'\n'), any::<u8>()], 0..400),
            chunk in 1usize..17,
        ) {
            let reader = chunked_reader(&input, chunk);
            let runtime = tokio::runtime::Builder::new_current_thread().build().expect("a runtime");
            let got = runtime.block_on(async {
                let mut lines = LineReader::new(reader);
                let mut out = Vec::new();
                while let Read::Line = lines.next().await {
                    out.push(lines.line().to_vec());
                }
                out
            });
            let mut expected: Vec<Vec<u8>> = input.split(|&b| b == b'\n').map(<[u8]>::to_vec).collect();
            expected.pop();
            prop_assert_eq!(got, expected);
        }
    }

    /// A reader that returns at most `chunk` bytes per read.
    fn chunked_reader(input: &[u8], chunk: usize) -> impl AsyncRead + Unpin + use<> {
        struct Chunked(Vec<u8>, usize, usize);
        impl AsyncRead for Chunked {
            fn poll_read(
                mut self: std::pin::Pin<&mut Self>,
                _: &mut std::task::Context<'_>,
                buf: &mut tokio::io::ReadBuf<'_>,
            ) -> std::task::Poll<std::io::Result<()>> {
                let Chunked(bytes, at, chunk) = &mut *self;
                let n = (*chunk).min(bytes.len() - *at).min(buf.remaining());
                buf.put_slice(&bytes[*at..*at + n]);
                *at += n;
                std::task::Poll::Ready(Ok(()))
            }
        }
        Chunked(input.to_vec(), 0, chunk)
    }

    #[tokio::test]
    async fn lines_are_bounded_and_a_long_one_keeps_only_its_start() {
        let mut input = b"a\n\nb\r\n".to_vec();
        input.extend(std::iter::repeat_n(b'x', MAX_LINE_BYTES + 10));
        input.extend_from_slice(b"\nc\nno newline");
        assert_eq!(lines_of(input).await, ["a", "", "b\r", &format!("too long, kept {MAX_LINE_BYTES}"), "c"]);
        // Exactly at the limit is a line.
        let mut input = vec![b'y'; MAX_LINE_BYTES];
        input.push(b'\n');
        assert_eq!(lines_of(input).await.len(), 1);
    }
}
