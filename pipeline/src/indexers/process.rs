//! Running one indexer process: its own process group, a deadline, cancellation, and the last
//! lines of what it printed.
//!
//! Indexers start helpers of their own (node workers, cargo, proc-macro servers, pip, build
//! tools), so a deadline that killed only the process ckb started would leave the rest running.
//! Each indexer therefore leads a new process group, and stopping it signals the whole group:
//! SIGTERM, then SIGKILL after a grace period. The group is also killed once its leader exits, so
//! nothing it left behind keeps running or holds its output pipes open. Output is read on two
//! threads (an indexer that fills a pipe nobody reads would block forever); only the last lines of
//! each stream are kept, for the report of a failure, and every line is passed to a callback that
//! drives the progress display.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::io::{BufRead, BufReader, Read};
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

/// Lines of each output stream kept for the report.
pub const TAIL_LINES: usize = 20;
/// Characters kept of one output line.
const LINE_CHARS: usize = 400;
/// How often a running process is checked for its exit, the deadline and cancellation.
const POLL: Duration = Duration::from_millis(20);
/// Between SIGTERM and SIGKILL when a process is stopped.
const GRACE: Duration = Duration::from_secs(2);
/// How long the output threads may take to finish once the process group is gone.
const DRAIN: Duration = Duration::from_secs(2);
/// Output lines queued for the progress display between two polls.
const LINE_QUEUE: usize = 256;

/// A command to run.
#[derive(Clone, Debug)]
pub struct Spawn {
    /// The executable.
    pub program: PathBuf,
    /// Its arguments.
    pub args: Vec<OsString>,
    /// Its working directory.
    pub cwd: PathBuf,
    /// Variables set on top of ckb's environment.
    pub env: Vec<(OsString, OsString)>,
}

/// How a process ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ending {
    /// Exit status 0.
    Success,
    /// Another exit status, or killed by a signal (`None`: no code).
    Failed(Option<i32>),
    /// Killed at the deadline.
    TimedOut,
    /// Killed because the run was cancelled.
    Cancelled,
    /// Could not be started.
    NotStarted(String),
}

/// What a process did.
#[derive(Clone, Debug)]
pub struct Finished {
    /// How it ended.
    pub ending: Ending,
    /// Wall time from start to end.
    pub elapsed: Duration,
    /// The last lines it wrote on stderr.
    pub stderr_tail: Vec<String>,
    /// The last lines it wrote on stdout.
    pub stdout_tail: Vec<String>,
}

impl Finished {
    /// The last lines of stderr, or of stdout when it wrote nothing on stderr (some indexers
    /// report errors on stdout).
    pub fn tail(&self) -> Vec<String> {
        if self.stderr_tail.is_empty() {
            self.stdout_tail.clone()
        } else {
            self.stderr_tail.clone()
        }
    }
}

/// Runs `spawn` until it exits, `timeout` passes or `cancel` is set; `on_line` sees every line it
/// prints (from the output threads).
pub fn run(
    spawn: &Spawn,
    timeout: Duration,
    cancel: &AtomicBool,
    on_line: &(dyn Fn(&str) + Sync),
) -> Finished {
    let start = Instant::now();
    let not_started = |why: String| Finished {
        ending: Ending::NotStarted(why),
        elapsed: start.elapsed(),
        stderr_tail: Vec::new(),
        stdout_tail: Vec::new(),
    };
    let mut command = Command::new(&spawn.program);
    command
        .args(&spawn.args)
        .current_dir(&spawn.cwd)
        .envs(spawn.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        command.process_group(0);
    }
    let mut child = match command.spawn() {
        Ok(c) => c,
        Err(e) => return not_started(e.to_string()),
    };
    let stderr_tail = Arc::new(Mutex::new(VecDeque::new()));
    let stdout_tail = Arc::new(Mutex::new(VecDeque::new()));
    let (line_tx, line_rx) = mpsc::sync_channel::<String>(LINE_QUEUE);
    let (done_tx, done_rx) = mpsc::channel::<()>();
    let streams = [
        child
            .stdout
            .take()
            .map(|s| Box::new(s) as Box<dyn Read + Send>),
        child
            .stderr
            .take()
            .map(|s| Box::new(s) as Box<dyn Read + Send>),
    ];
    let mut readers = 0;
    for (stream, tail) in streams
        .into_iter()
        .zip([Arc::clone(&stdout_tail), Arc::clone(&stderr_tail)])
    {
        let Some(stream) = stream else { continue };
        readers += 1;
        let (lines, done) = (line_tx.clone(), done_tx.clone());
        // Not scoped: a process outside the group may keep the pipe open after the group is gone,
        // and the run must not wait for it. The thread ends when the pipe closes.
        std::thread::spawn(move || {
            keep_tail(stream, &tail, &lines);
            let _ = done.send(());
        });
    }
    drop((line_tx, done_tx));
    let ending = wait(&mut child, start, timeout, cancel, &|| {
        // Only the newest line is shown; older ones queued meanwhile are passed over.
        if let Some(line) = line_rx.try_iter().last() {
            on_line(&line);
        }
    });
    stop_group(&child, false);
    // Both streams closed, or the drain time is up.
    let deadline = Instant::now() + DRAIN;
    while readers > 0 {
        match done_rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            Ok(()) => readers -= 1,
            Err(_) => break,
        }
    }
    Finished {
        ending,
        elapsed: start.elapsed(),
        stderr_tail: lines_of(&stderr_tail),
        stdout_tail: lines_of(&stdout_tail),
    }
}

/// Waits for the process, stopping it at the deadline or on cancellation; `tick` runs on every
/// poll.
fn wait(
    child: &mut Child,
    start: Instant,
    timeout: Duration,
    cancel: &AtomicBool,
    tick: &dyn Fn(),
) -> Ending {
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return ending_of(status),
            Ok(None) => {}
            Err(e) => {
                stop_group(child, true);
                let _ = child.wait();
                return Ending::NotStarted(format!("cannot wait for it: {e}"));
            }
        }
        tick();
        let why = if cancel.load(Ordering::Relaxed) {
            Some(Ending::Cancelled)
        } else if start.elapsed() >= timeout {
            Some(Ending::TimedOut)
        } else {
            None
        };
        if let Some(ending) = why {
            stop_group(child, true);
            let _ = child.wait();
            return ending;
        }
        std::thread::sleep(POLL);
    }
}

fn ending_of(status: ExitStatus) -> Ending {
    if status.success() {
        Ending::Success
    } else {
        Ending::Failed(status.code())
    }
}

/// Signals the process group the child leads: SIGTERM then, after [`GRACE`], SIGKILL when
/// `graceful`; SIGKILL at once otherwise (the leader already exited: what is left is strays).
fn stop_group(child: &Child, graceful: bool) {
    #[cfg(unix)]
    {
        use rustix::process::{kill_process_group, test_kill_process_group, Pid, Signal};
        let group = Pid::from_child(child);
        if graceful {
            let _ = kill_process_group(group, Signal::TERM);
            let until = Instant::now() + GRACE;
            while Instant::now() < until && test_kill_process_group(group).is_ok() {
                std::thread::sleep(POLL);
            }
        }
        // ESRCH (no such group) is the common case: nothing was left.
        let _ = kill_process_group(group, Signal::KILL);
    }
    #[cfg(not(unix))]
    {
        let _ = graceful;
        let _ = child;
    }
}

/// Reads `stream` to its end, keeping its last [`TAIL_LINES`] lines (a carriage return also ends
/// a line: progress bars redraw with it).
fn keep_tail(
    stream: Box<dyn Read + Send>,
    tail: &Mutex<VecDeque<String>>,
    lines: &mpsc::SyncSender<String>,
) {
    let mut reader = BufReader::with_capacity(64 * 1024, stream);
    let mut buf = Vec::new();
    loop {
        buf.clear();
        match read_line(&mut reader, &mut buf) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        let text = String::from_utf8_lossy(&buf);
        let line = text.trim_end();
        if line.trim().is_empty() {
            continue;
        }
        let line: String = strip_escapes(line).chars().take(LINE_CHARS).collect();
        // A full queue drops the line for the display only; the tail keeps it.
        let _ = lines.try_send(line.clone());
        if let Ok(mut t) = tail.lock() {
            if t.len() == TAIL_LINES {
                t.pop_front();
            }
            t.push_back(line);
        }
    }
}

/// Reads up to and including the next `\n` or `\r`.
fn read_line(reader: &mut impl BufRead, buf: &mut Vec<u8>) -> std::io::Result<usize> {
    let mut read = 0;
    loop {
        let available = match reader.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if available.is_empty() {
            return Ok(read);
        }
        match memchr::memchr2(b'\n', b'\r', available) {
            Some(i) => {
                buf.extend_from_slice(&available[..=i]);
                reader.consume(i + 1);
                return Ok(read + i + 1);
            }
            None => {
                let n = available.len();
                buf.extend_from_slice(available);
                reader.consume(n);
                read += n;
            }
        }
    }
}

/// A line without terminal escape sequences (colours, cursor moves).
fn strip_escapes(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            if chars.peek() == Some(&'[') {
                chars.next();
                // Parameters, then one final byte in @..~.
                for d in chars.by_ref() {
                    if ('@'..='~').contains(&d) {
                        break;
                    }
                }
            }
            continue;
        }
        if !c.is_control() || c == '\t' {
            out.push(c);
        }
    }
    out
}

fn lines_of(tail: &Mutex<VecDeque<String>>) -> Vec<String> {
    tail.lock()
        .map(|t| t.iter().cloned().collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(script: &str) -> Spawn {
        Spawn {
            program: "sh".into(),
            args: vec!["-c".into(), script.into()],
            cwd: std::env::temp_dir(),
            env: vec![("CKB_TEST_VAR".into(), "set".into())],
        }
    }

    fn go(script: &str, timeout: Duration) -> Finished {
        run(&sh(script), timeout, &AtomicBool::new(false), &|_| {})
    }

    #[test]
    fn success_failure_and_the_tail_of_each_stream() {
        let ok = go(
            "echo out; echo \"$CKB_TEST_VAR\" >&2",
            Duration::from_secs(30),
        );
        assert_eq!(ok.ending, Ending::Success);
        assert_eq!(ok.stdout_tail, ["out"]);
        assert_eq!(ok.stderr_tail, ["set"]);
        let failed = go(
            "i=0; while [ $i -lt 50 ]; do echo \"line $i\" >&2; i=$((i+1)); done; exit 3",
            Duration::from_secs(30),
        );
        assert_eq!(failed.ending, Ending::Failed(Some(3)));
        assert_eq!(failed.stderr_tail.len(), TAIL_LINES);
        assert_eq!(
            failed.stderr_tail.last().map(String::as_str),
            Some("line 49")
        );
        assert_eq!(failed.tail(), failed.stderr_tail);
        // Progress bars redraw with \r; colours are dropped.
        let bar = go(
            "printf '10%%\\r50%%\\r\\033[1mdone\\033[0m\\n'",
            Duration::from_secs(30),
        );
        assert_eq!(bar.stdout_tail, ["10%", "50%", "done"]);
    }

    #[test]
    fn a_missing_program_is_not_started() {
        let f = run(
            &Spawn {
                program: "/nonexistent/ckb-no-such-indexer".into(),
                args: Vec::new(),
                cwd: std::env::temp_dir(),
                env: Vec::new(),
            },
            Duration::from_secs(5),
            &AtomicBool::new(false),
            &|_| {},
        );
        assert!(matches!(f.ending, Ending::NotStarted(_)), "{f:?}");
    }

    #[cfg(unix)]
    #[test]
    fn the_deadline_kills_the_whole_group_and_returns_while_a_grandchild_holds_the_pipes() {
        let marker = tempfile::tempdir().expect("temp dir");
        let pid_file = marker.path().join("grandchild.pid");
        // The grandchild ignores SIGTERM and would outlive its parent; it holds stdout open.
        let script = format!(
            "sh -c 'trap \"\" TERM; echo $$ > {}; while :; do sleep 1; done' & echo started; wait",
            pid_file.display()
        );
        let t0 = Instant::now();
        let f = go(&script, Duration::from_millis(500));
        assert_eq!(f.ending, Ending::TimedOut);
        assert!(t0.elapsed() < Duration::from_secs(15), "{:?}", t0.elapsed());
        assert_eq!(f.stdout_tail, ["started"]);
        let pid: i32 = std::fs::read_to_string(&pid_file)
            .expect("the grandchild started")
            .trim()
            .parse()
            .expect("a pid");
        let pid = rustix::process::Pid::from_raw(pid).expect("a positive pid");
        let until = Instant::now() + Duration::from_secs(5);
        while rustix::process::test_kill_process(pid).is_ok() && Instant::now() < until {
            std::thread::sleep(POLL);
        }
        assert!(
            rustix::process::test_kill_process(pid).is_err(),
            "the grandchild survived the deadline"
        );
    }

    #[test]
    fn cancellation_stops_a_running_process() {
        let cancel = AtomicBool::new(true);
        let f = run(&sh("sleep 30"), Duration::from_secs(60), &cancel, &|_| {});
        assert_eq!(f.ending, Ending::Cancelled);
        assert!(f.elapsed < Duration::from_secs(10));
    }

    #[test]
    fn lines_reach_the_callback() {
        let seen = Mutex::new(Vec::new());
        let f = run(
            &sh("echo one; sleep 0.3; echo two; sleep 0.3"),
            Duration::from_secs(30),
            &AtomicBool::new(false),
            &|l| seen.lock().expect("lock").push(l.to_string()),
        );
        assert_eq!(f.ending, Ending::Success);
        let seen = seen.into_inner().expect("lock");
        assert!(seen.contains(&"one".to_string()), "{seen:?}");
        assert!(seen.contains(&"two".to_string()), "{seen:?}");
    }
}
