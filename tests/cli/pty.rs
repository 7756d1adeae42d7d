//! A program on a real terminal, without tmux: a pseudo-terminal opened with `openpty(3)`, the
//! child made a session leader with the terminal as its controlling one (so Ctrl-C, sent as the
//! byte it is, becomes SIGINT for its foreground process group, as at a keyboard).

use std::io::{Read, Write};
use std::os::fd::{FromRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub struct Terminal {
    master: std::fs::File,
    child: Child,
    screen: Arc<Mutex<Vec<u8>>>,
}

impl Terminal {
    /// Starts `command` on a new terminal of `rows` × `columns`.
    pub fn spawn(mut command: Command, rows: u16, columns: u16) -> Terminal {
        let (mut master, mut slave) = (0, 0);
        let size = libc::winsize {
            ws_row: rows,
            ws_col: columns,
            ws_xpixel: 0,
            ws_ypixel: 0,
        };
        // SAFETY: openpty fills the two descriptors; the name and settings are not asked for.
        let opened = unsafe {
            libc::openpty(
                &mut master,
                &mut slave,
                std::ptr::null_mut(),
                std::ptr::null(),
                &size,
            )
        };
        assert_eq!(opened, 0, "openpty: {}", std::io::Error::last_os_error());
        // SAFETY: both descriptors were just opened and are owned here alone.
        let (master, slave) =
            unsafe { (OwnedFd::from_raw_fd(master), OwnedFd::from_raw_fd(slave)) };
        for fd in [&master, &slave] {
            use std::os::fd::AsRawFd;
            // Not inherited by what other test threads start meanwhile.
            // SAFETY: fcntl on an open descriptor.
            unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_SETFD, libc::FD_CLOEXEC) };
        }
        let stdio = |fd: &OwnedFd| Stdio::from(fd.try_clone().expect("dup the terminal"));
        command
            .stdin(stdio(&slave))
            .stdout(stdio(&slave))
            .stderr(stdio(&slave));
        // SAFETY: setsid and ioctl are async-signal-safe; nothing else runs between fork and exec.
        unsafe {
            command.pre_exec(|| {
                if libc::setsid() < 0 || libc::ioctl(0, libc::TIOCSCTTY, 0) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                // A terminal session's program starts with the keyboard signals at their default
                // actions, whatever the test runner inherited (a shell's background job ignores
                // SIGINT and SIGQUIT).
                for signal in [libc::SIGINT, libc::SIGQUIT, libc::SIGTSTP] {
                    libc::signal(signal, libc::SIG_DFL);
                }
                Ok(())
            });
        }
        let child = command.spawn().expect("start on the terminal");
        drop(slave);
        let master = std::fs::File::from(master);
        let screen = Arc::new(Mutex::new(Vec::new()));
        let mut reader = master.try_clone().expect("dup the master");
        let sink = Arc::clone(&screen);
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            // Ends with EIO once the child and its children have closed the terminal.
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 {
                    break;
                }
                sink.lock().unwrap().extend_from_slice(&buf[..n]);
            }
        });
        Terminal {
            master,
            child,
            screen,
        }
    }

    /// Everything written to the terminal so far (with the `\r\n` the terminal turns `\n` into).
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.screen.lock().unwrap()).into_owned()
    }

    /// Waits (10 s at most) until `needle` has been written `count` times in all.
    pub fn wait_for_nth(&self, needle: &str, count: usize) -> String {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let text = self.text();
            if text.matches(needle).count() >= count {
                return text;
            }
            assert!(
                Instant::now() < deadline,
                "waiting for {needle:?} (×{count}):\n{text}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    pub fn wait_for(&self, needle: &str) -> String {
        self.wait_for_nth(needle, 1)
    }

    /// Types `keys`.
    pub fn send(&mut self, keys: &[u8]) {
        self.master.write_all(keys).expect("type on the terminal");
        self.master.flush().expect("flush the terminal");
    }

    /// The terminal's local modes now (`ICANON`, `ECHO`, `ISIG`, …), as the program left them.
    pub fn local_modes(&self) -> libc::tcflag_t {
        use std::os::fd::AsRawFd;
        // SAFETY: zeroed termios is filled by tcgetattr, whose result is checked.
        unsafe {
            let mut modes: libc::termios = std::mem::zeroed();
            assert_eq!(libc::tcgetattr(self.master.as_raw_fd(), &mut modes), 0);
            modes.c_lflag
        }
    }

    /// Waits (10 s at most) for the program to end.
    pub fn wait(&mut self) -> ExitStatus {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                panic!("the program did not end:\n{}", self.text());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Whether the terminal is as a shell expects it: lines, echo, signals.
    pub fn is_restored(&self) -> bool {
        let modes = self.local_modes();
        modes & libc::ICANON != 0 && modes & libc::ECHO != 0 && modes & libc::ISIG != 0
    }
}

impl Drop for Terminal {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
