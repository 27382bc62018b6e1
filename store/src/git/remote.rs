//! git calls that reach a remote (`ls-remote`, `push`, `fetch`) under a deadline. A remote that
//! accepts a connection and never answers (a dropped VPN, a black-holed host) would otherwise
//! keep git waiting for minutes, and whoever waits on git with it. Each such git runs in its own
//! process group (its `ssh` or `git-remote-https` children with it); when the deadline passes
//! the whole group is killed and the caller is told the remote did not answer.

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// How long a git call to the claims remote may take when nothing says otherwise.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

/// What a git call under a deadline ended with.
#[derive(Debug)]
pub enum Ran {
    /// git finished (successfully or not) before the deadline.
    Done(Output),
    /// The deadline passed first; git and its children were killed.
    TimedOut,
}

/// Runs `cmd` (stdin closed, stdout and stderr captured) until it exits or `until` passes,
/// whichever is first; at the deadline its process group is killed.
pub fn run_until(cmd: &mut Command, until: Instant) -> std::io::Result<Ran> {
    cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).process_group(0);
    // A remote asking for a password would wait for a person who is not there.
    cmd.env("GIT_TERMINAL_PROMPT", "0");
    let mut child = cmd.spawn()?;
    let out = reader(child.stdout.take());
    let err = reader(child.stderr.take());
    let mut pause = Duration::from_millis(1);
    loop {
        if let Some(status) = child.try_wait()? {
            let stdout = out.join().unwrap_or_default();
            let stderr = err.join().unwrap_or_default();
            return Ok(Ran::Done(Output { status, stdout, stderr }));
        }
        let now = Instant::now();
        if now >= until {
            kill_group(&mut child);
            // The readers end when the group's pipes close; they are not waited for (a child that
            // left the group could keep a pipe open).
            return Ok(Ran::TimedOut);
        }
        std::thread::sleep(pause.min(until - now));
        pause = (pause * 2).min(Duration::from_millis(20));
    }
}

fn reader<R: Read + Send + 'static>(pipe: Option<R>) -> std::thread::JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        if let Some(mut p) = pipe {
            let _ = p.read_to_end(&mut bytes);
        }
        bytes
    })
}

fn kill_group(child: &mut Child) {
    if let Ok(pid) = i32::try_from(child.id()) {
        // SAFETY: kill(2) with a negative pid signals the process group the child leads (it was
        // spawned with process_group(0), so its group id is its pid); no memory is involved.
        unsafe { libc::kill(-pid, libc::SIGKILL) };
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// `N s` for a message ("2 s", "0.5 s").
pub fn seconds(d: Duration) -> String {
    match d.subsec_millis() {
        0 => format!("{} s", d.as_secs()),
        _ => format!("{:.1} s", d.as_secs_f64()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_command_past_its_deadline_is_killed_with_its_children() {
        let tmp = tempfile::tempdir().expect("tmp");
        let marker = tmp.path().join("child-alive");
        // The shell starts a child that would write the marker after the deadline.
        let script = format!("(sleep 2; touch '{}') & sleep 30", marker.display());
        let ran = run_until(Command::new("sh").args(["-c", &script]), Instant::now() + Duration::from_millis(300))
            .expect("spawn");
        assert!(matches!(ran, Ran::TimedOut), "{ran:?}");
        std::thread::sleep(Duration::from_millis(2_500));
        assert!(!marker.exists(), "the child in the group was killed too");
    }

    #[test]
    fn a_command_that_finishes_gives_its_output() {
        let ran = run_until(
            Command::new("sh").args(["-c", "echo out; echo err >&2; exit 3"]),
            Instant::now() + DEFAULT_TIMEOUT,
        )
        .expect("spawn");
        let Ran::Done(out) = ran else { panic!("timed out") };
        assert_eq!(
            (out.stdout.as_slice(), out.stderr.as_slice(), out.status.code()),
            (&b"out\n"[..], &b"err\n"[..], Some(3))
        );
    }
}
