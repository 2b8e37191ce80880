//! Opening the event log for a session: a regular file, locked, its header on disk at once.
//!
//! - Only a regular file is recorded into, or a character device written as it is
//!   (`/dev/null` to discard the log, `/dev/full` to test write errors). The file is opened
//!   without blocking (`O_NONBLOCK`: a FIFO without a reader fails at once instead of
//!   hanging the program at session start) and refused after `fstat` if it is a FIFO, a
//!   socket or anything else.
//! - The file is locked (`flock`, exclusive) before it is truncated: a second process
//!   given the same `PPLIB_LOG` finds it locked and records into `STEM.PID.EXT` next to it
//!   instead (saying so on stderr), so that neither log is corrupted by the other.
//! - The caller writes and flushes the header right away (see `recorder::start`), so a
//!   process that dies right after the session starts leaves a log that readers recognize
//!   as truncated, not an empty file.

use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use crate::sys;

/// Opens (creating it if needed) the log at `path`, or at a name of its own next to it if
/// another process is recording into `path`; returns the file, locked and empty, and the
/// path it has.
pub(crate) fn open_log(path: &Path) -> io::Result<(File, PathBuf)> {
    if let Some(file) = open_locked(path, false)? {
        return Ok((file, path.to_owned()));
    }
    for n in 0..100 {
        let other = alternative(path, n);
        match open_locked(&other, true) {
            Ok(Some(file)) => {
                eprintln!(
                    "pplib: {} is being recorded into by another process; this process records into {}",
                    path.display(),
                    other.display()
                );
                return Ok((file, other));
            }
            Ok(None) => {}
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(e),
        }
    }
    Err(io::Error::new(
        io::ErrorKind::WouldBlock,
        "another process is recording into this log, and no other name next to it was free",
    ))
}

/// `STEM.PID.EXT` (`STEM.PID-N.EXT` after the first) next to `path`.
fn alternative(path: &Path, n: u32) -> PathBuf {
    let stem = path
        .file_stem()
        .map_or_else(|| "pplib".into(), |s| s.to_string_lossy());
    let pid = std::process::id();
    let tag = if n == 0 {
        pid.to_string()
    } else {
        format!("{pid}-{n}")
    };
    let name = match path.extension() {
        Some(ext) => format!("{stem}.{tag}.{}", ext.to_string_lossy()),
        None => format!("{stem}.{tag}"),
    };
    path.with_file_name(name)
}

/// Opens `path` for writing (a new file only, with `new`), checks that it is a regular
/// file (or a character device, used as it is), locks it and empties it; `None` when
/// another process holds its lock.
fn open_locked(path: &Path, new: bool) -> io::Result<Option<File>> {
    let mut options = OpenOptions::new();
    options
        .write(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_CLOEXEC);
    if new {
        options.create_new(true);
    } else {
        options.create(true);
    }
    let file = options.open(path).map_err(|e| {
        if e.raw_os_error() == Some(libc::ENXIO) {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                "a FIFO (named pipe) without a reader: pplib records into regular files only",
            )
        } else {
            e
        }
    })?;
    let kind = file.metadata()?.file_type();
    if kind.is_char_device() {
        return Ok(Some(file));
    }
    if !kind.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a regular file (a FIFO, socket or block device): pplib records into regular files only",
        ));
    }
    if !sys::try_lock_exclusive(&file)? {
        return Ok(None);
    }
    // Emptied only once locked: a log another process is writing is never cut.
    file.set_len(0)?;
    Ok(Some(file))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alternative_names_keep_the_extension() {
        let pid = std::process::id();
        assert_eq!(
            alternative(Path::new("/tmp/run.pplog"), 0),
            PathBuf::from(format!("/tmp/run.{pid}.pplog"))
        );
        assert_eq!(
            alternative(Path::new("log"), 2),
            PathBuf::from(format!("log.{pid}-2"))
        );
    }
}
