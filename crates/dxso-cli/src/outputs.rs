//! A draw's outputs written as `dxso run` prints them (json, csv, bin), a part at a time: the
//! CPU draw hands its vertices over in parts ([`dxso_vm::Device::draw_parts`]), so a draw of
//! any vertex count streams to its file in memory bounded by the part, not the draw.

use crate::run::{RunFormat, number};
use dxso_vm::Outputs;
use std::io::Write;

/// Vertices a streamed draw holds at once: 1,048,576 (16 MiB a output register).
pub const PART_VERTICES: usize = 1 << 20;

/// Writes one draw's outputs: the format's header before the first part, each part's
/// vertices, the footer at [`OutputWriter::finish`].
pub struct OutputWriter<W: Write> {
    format: RunFormat,
    w: W,
    /// Vertices written so far (the json format separates them with commas).
    written: usize,
    started: bool,
    text: String,
}

impl<W: Write> OutputWriter<W> {
    pub fn new(format: RunFormat, w: W) -> OutputWriter<W> {
        OutputWriter {
            format,
            w,
            written: 0,
            started: false,
            text: String::new(),
        }
    }

    /// Writes `out`'s vertices (and, before the first part, the header its registers give).
    pub fn part(&mut self, out: &Outputs) -> std::io::Result<()> {
        if self.format == RunFormat::Bin {
            let bytes: Vec<u8> = out.data.iter().flat_map(|x| x.to_le_bytes()).collect();
            return self.w.write_all(&bytes);
        }
        self.text.clear();
        if !self.started {
            self.header(out);
            self.started = true;
        }
        for i in 0..out.vertices {
            match self.format {
                RunFormat::Json => self.json_vertex(out, i),
                _ => self.csv_row(out.vertex(i)),
            }
            self.written += 1;
        }
        self.w.write_all(self.text.as_bytes())
    }

    /// Writes the footer and flushes; returns the writer.
    pub fn finish(mut self) -> std::io::Result<W> {
        if self.format == RunFormat::Json {
            self.w.write_all(b"\n ]}\n")?;
        }
        self.w.flush()?;
        Ok(self.w)
    }

    fn header(&mut self, out: &Outputs) {
        let s = &mut self.text;
        match self.format {
            RunFormat::Json => {
                s.push_str("{\"outputs\": {");
                for (k, r) in out.registers.iter().enumerate() {
                    if k > 0 {
                        s.push_str(", ");
                    }
                    s.push_str(&format!("\"{}\": \"{}\"", r.name, r.semantic));
                }
                s.push_str("},\n \"vertices\": [");
            }
            _ => {
                let header: Vec<String> = out
                    .registers
                    .iter()
                    .flat_map(|r| ["x", "y", "z", "w"].map(|c| format!("{}.{c}", r.name)))
                    .collect();
                s.push_str(&header.join(","));
                s.push('\n');
            }
        }
    }

    fn json_vertex(&mut self, out: &Outputs, i: usize) {
        let s = &mut self.text;
        s.push_str(if self.written == 0 { "\n  {" } else { ",\n  {" });
        for (k, r) in out.registers.iter().enumerate() {
            let v = &out.vertex(i)[k * 4..k * 4 + 4];
            if k > 0 {
                s.push_str(", ");
            }
            s.push_str(&format!(
                "\"{}\": [{}, {}, {}, {}]",
                r.name,
                number(v[0]),
                number(v[1]),
                number(v[2]),
                number(v[3])
            ));
        }
        s.push('}');
    }

    fn csv_row(&mut self, values: &[f32]) {
        let row: Vec<String> = values
            .iter()
            .map(|x| number(*x).trim_matches('"').to_string())
            .collect();
        self.text.push_str(&row.join(","));
        self.text.push('\n');
    }
}
