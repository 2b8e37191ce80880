//! Code addresses to places in the program: the loaded object, the function (ELF symbols,
//! read with `goblin`) and, where the object carries DWARF debug information, the source
//! file and line (its line table, read with `addr2line`) and the function the compiler
//! inlined there (its inlined-subroutine entries: a `static` helper inlined into `main` is
//! still named after itself).
//!
//! The loaded objects and their load biases (PIE executables and shared libraries are
//! loaded at an offset from their link addresses) come from `dl_iterate_phdr`. An object's
//! file is read and its tables are built the first time an address in it is looked up, then
//! kept for the rest of the process.

use std::ffi::{c_int, c_void, CStr};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use addr2line::gimli;

/// Debug sections are copied out of the file once per object and kept for the process's
/// life (as the object's tables are).
type Reader = gimli::EndianSlice<'static, gimli::RunTimeEndian>;

/// Where a code address is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Place {
    /// The loaded object's file name (no directory), e.g. `prog` or `libfoo.so`.
    pub object: String,
    /// The address relative to the object's link addresses.
    pub address: u64,
    /// The function containing it, and the address's offset in it.
    pub function: Option<(String, u64)>,
    /// Source file (no directory) and line, from the line table.
    pub line: Option<(String, u32)>,
    /// The innermost function inlined at the address (DWARF), when it lies in inlined code:
    /// the function of the source, where [`Place::function`] is the symbol it was inlined
    /// into.
    pub inlined: Option<String>,
}

/// A loaded object: where it is mapped and, once read, its tables.
struct Object {
    path: PathBuf,
    bias: usize,
    segments: Vec<(usize, usize)>,
    tables: Option<Arc<Tables>>,
}

/// An object's function symbols (sorted by start) and line table.
struct Tables {
    functions: Vec<(u64, u64, String)>,
    lines: Option<Mutex<addr2line::Context<Reader>>>,
}

static OBJECTS: Mutex<Vec<Object>> = Mutex::new(Vec::new());

/// Where `address` (a return address into the program, e.g. an OMPT `codeptr_ra`) is; None
/// if no loaded object contains it.
pub(crate) fn locate(address: usize) -> Option<Place> {
    let mut objects = OBJECTS.lock().unwrap_or_else(PoisonError::into_inner);
    let index = match find(&objects, address) {
        Some(i) => i,
        None => {
            // An object loaded since the last listing (or the first lookup).
            *objects = loaded_objects();
            find(&objects, address)?
        }
    };
    let object = &mut objects[index];
    let tables = object
        .tables
        .get_or_insert_with(|| Arc::new(Tables::read(&object.path)))
        .clone();
    let address = (address - object.bias) as u64;
    let name = object
        .path
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    drop(objects);
    // A return address points after the call: its call instruction ends one byte before.
    let call = address.saturating_sub(1);
    Some(Place {
        object: name,
        address,
        function: tables.function(call),
        line: tables.line(call),
        inlined: tables.inlined(call),
    })
}

/// Lists the loaded objects and reads the main program's tables now (the tool calls it
/// before its session starts, so that the first region's name costs the session little).
pub(crate) fn preload_program() {
    let mut objects = OBJECTS.lock().unwrap_or_else(PoisonError::into_inner);
    *objects = loaded_objects();
    // dl_iterate_phdr lists the main program first.
    if let Some(program) = objects.first_mut() {
        let path = &program.path;
        program
            .tables
            .get_or_insert_with(|| Arc::new(Tables::read(path)));
    }
}

fn find(objects: &[Object], address: usize) -> Option<usize> {
    objects.iter().position(|o| {
        o.segments
            .iter()
            .any(|&(start, end)| (start..end).contains(&address))
    })
}

impl Tables {
    /// Reads an object's symbols and line table (empty tables if the file is unreadable).
    fn read(path: &Path) -> Tables {
        let Ok(bytes) = std::fs::read(path) else {
            return Tables {
                functions: Vec::new(),
                lines: None,
            };
        };
        let Ok(elf) = goblin::elf::Elf::parse(&bytes) else {
            return Tables {
                functions: Vec::new(),
                lines: None,
            };
        };
        let mut functions = Vec::new();
        for (symbols, strings) in [(&elf.syms, &elf.strtab), (&elf.dynsyms, &elf.dynstrtab)] {
            for sym in symbols.iter() {
                if sym.is_function() && sym.st_value != 0 && !sym.is_import() {
                    if let Some(name) = strings.get_at(sym.st_name).filter(|n| !n.is_empty()) {
                        functions.push((sym.st_value, sym.st_size, name.to_owned()));
                    }
                }
            }
        }
        functions.sort();
        functions.dedup_by_key(|f| f.0);
        let lines = line_table(&elf, &bytes).map(Mutex::new);
        Tables { functions, lines }
    }

    /// The function containing `address` and the offset in it.
    fn function(&self, address: u64) -> Option<(String, u64)> {
        let i = self.functions.partition_point(|f| f.0 <= address);
        let (start, size, name) = self.functions.get(i.checked_sub(1)?)?;
        // A symbol without a size (hand-written assembly) extends to the next one.
        let end = if *size > 0 {
            start + size
        } else {
            self.functions.get(i).map_or(u64::MAX, |f| f.0)
        };
        (address < end).then(|| (name.clone(), address - start))
    }

    /// The source file and line of `address`, from the DWARF line table.
    fn line(&self, address: u64) -> Option<(String, u32)> {
        let context = self
            .lines
            .as_ref()?
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let location = context.find_location(address).ok()??;
        let file = Path::new(location.file?).file_name()?.to_string_lossy();
        Some((file.into_owned(), location.line?))
    }
}

impl Tables {
    /// The innermost inlined function at `address`: the first of the DWARF frames there when
    /// more than one frame covers it (a lone frame is the symbol's own function).
    fn inlined(&self, address: u64) -> Option<String> {
        let context = self
            .lines
            .as_ref()?
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let mut frames = context.find_frames(address).skip_all_loads().ok()?;
        let innermost = frames.next().ok()??;
        frames.next().ok()??;
        let name = innermost.function?.raw_name().ok()?.into_owned();
        (!name.is_empty()).then_some(name)
    }
}

/// The DWARF sections of `elf` as an `addr2line` context; None without `.debug_info` (or
/// with compressed debug sections, which this reader does not inflate).
fn line_table(elf: &goblin::elf::Elf<'_>, bytes: &[u8]) -> Option<addr2line::Context<Reader>> {
    let endian = if elf.little_endian {
        gimli::RunTimeEndian::Little
    } else {
        gimli::RunTimeEndian::Big
    };
    let section = |name: &str| -> Option<&[u8]> {
        let header = elf
            .section_headers
            .iter()
            .find(|h| elf.shdr_strtab.get_at(h.sh_name) == Some(name))?;
        if header.sh_type == goblin::elf::section_header::SHT_NOBITS
            || header.sh_flags & u64::from(goblin::elf::section_header::SHF_COMPRESSED) != 0
        {
            return None;
        }
        let start = usize::try_from(header.sh_offset).ok()?;
        let end = start.checked_add(usize::try_from(header.sh_size).ok()?)?;
        bytes.get(start..end)
    };
    section(".debug_info")?;
    let dwarf = gimli::Dwarf::load(|id: gimli::SectionId| -> Result<Reader, gimli::Error> {
        let data: &'static [u8] = match section(id.name()) {
            Some(data) if !data.is_empty() => Box::leak(data.to_vec().into_boxed_slice()),
            _ => &[],
        };
        Ok(gimli::EndianSlice::new(data, endian))
    })
    .ok()?;
    addr2line::Context::from_dwarf(dwarf).ok()
}

/// The objects loaded in this process now, with their load biases and mapped segments.
fn loaded_objects() -> Vec<Object> {
    unsafe extern "C" fn visit(
        info: *mut libc::dl_phdr_info,
        _size: libc::size_t,
        data: *mut c_void,
    ) -> c_int {
        // SAFETY: `data` is the `&mut Vec<Object>` passed to dl_iterate_phdr below, alive
        // and not otherwise borrowed during the call; `info` points to a valid
        // `dl_phdr_info` for the duration of this callback, whose `dlpi_phdr` holds
        // `dlpi_phnum` program headers and whose `dlpi_name` is null or a C string.
        unsafe {
            let objects = &mut *data.cast::<Vec<Object>>();
            let info = &*info;
            let name = if info.dlpi_name.is_null() {
                ""
            } else {
                CStr::from_ptr(info.dlpi_name).to_str().unwrap_or("")
            };
            let headers = if info.dlpi_phdr.is_null() {
                &[][..]
            } else {
                std::slice::from_raw_parts(info.dlpi_phdr, usize::from(info.dlpi_phnum))
            };
            let bias = info.dlpi_addr as usize;
            let segments = headers
                .iter()
                .filter(|h| h.p_type == libc::PT_LOAD)
                .map(|h| {
                    let start = bias.wrapping_add(h.p_vaddr as usize);
                    (start, start.wrapping_add(h.p_memsz as usize))
                })
                .collect();
            // The main program has an empty name; the vDSO has no file.
            let path = if name.is_empty() {
                std::fs::read_link("/proc/self/exe").unwrap_or_default()
            } else {
                PathBuf::from(name)
            };
            objects.push(Object {
                path,
                bias,
                segments,
                tables: None,
            });
        }
        0
    }
    let mut objects: Vec<Object> = Vec::new();
    // SAFETY: `visit` matches the callback type and only uses `data` as the vector passed
    // here, which outlives the call; dl_iterate_phdr calls it synchronously.
    unsafe {
        libc::dl_iterate_phdr(Some(visit), (&mut objects as *mut Vec<Object>).cast());
    }
    objects
}

#[cfg(test)]
mod tests {
    use super::*;

    #[inline(never)]
    fn here() -> usize {
        here as *const () as usize + 1
    }

    #[test]
    fn a_function_of_this_test_binary_is_found_by_name() {
        let place = locate(here()).expect("the test binary is a loaded object");
        let (function, offset) = place.function.expect("test binaries keep their symbols");
        assert!(function.contains("here"), "{function}");
        assert_eq!(offset, 0);
        assert!(!place.object.is_empty());
        // Release builds of this workspace keep line tables (profile.release debug = 1).
        if let Some((file, line)) = place.line {
            assert_eq!(file, "symbols.rs");
            assert!(line > 200, "{line}");
        }
    }

    #[test]
    fn an_address_outside_every_object_is_not_found() {
        assert_eq!(locate(8), None);
    }
}
