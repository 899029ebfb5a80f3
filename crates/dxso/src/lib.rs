//! # dxso — Direct3D 9 shader bytecode
//!
//! The format crate: one opcode table ([`opcodes`]), a loss-free IR ([`ir`]), the token
//! reader and writer ([`binary`]), and the assembler and disassembler ([`text`]).
//!
//! ```
//! let shader = dxso::text::parse("vs_3_0\ndcl_position v0\ndcl_position o0\nmov o0, v0\n").unwrap();
//! let tokens = dxso::binary::write(&shader).unwrap();
//! assert_eq!(tokens[0], 0xFFFE0300);
//! let back = dxso::binary::read(&tokens).unwrap();
//! assert_eq!(back, shader);
//! assert!(dxso::text::print(&back).contains("mov o0, v0"));
//! ```

#![forbid(unsafe_code)]

pub mod binary;
pub mod ctab;
pub mod formula;
pub mod ir;
pub mod link;
pub mod opcodes;
pub mod registers;
pub mod report;
pub mod source;
pub mod text;
pub mod validate;

pub use ir::{Instruction, Shader, Version};
pub use opcodes::Opcode;
