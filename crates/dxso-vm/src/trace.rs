//! The shader debugger: one vertex run alone (lane 0 of a batch), every executed instruction
//! recorded with the values it wrote and the execution state.

use crate::VmError;
use crate::exec::{Machine, Tracer};
use crate::program::{DstKind, Op, Program};
use dxso::registers::register_name;

/// One executed instruction.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceStep {
    /// Index into the shader's instructions.
    pub instruction: usize,
    /// The instruction as assembly text.
    pub text: String,
    /// Whether the vertex's lane was active (execution mask and predicate) when it ran.
    pub active: bool,
    /// What it wrote or decided: `r0 = (1, 2, 3, 4)`, `taken`, `aL = 2`, ...
    pub effect: String,
}

/// A vertex's run.
#[derive(Clone, Debug, PartialEq)]
pub struct Trace {
    /// The vertex's index in the draw.
    pub vertex: usize,
    /// Each executed op, in order.
    pub steps: Vec<TraceStep>,
    /// The vertex's output registers, 4 floats each, in the program's output order.
    pub outputs: Vec<f32>,
    /// Set when the run ended with an error (the instruction cap).
    pub error: Option<VmError>,
}

pub(crate) struct Recorder<'a> {
    program: &'a Program,
    steps: Vec<TraceStep>,
    /// The lane followed (0 for vertex traces).
    lane: usize,
    /// Names of constant registers (`c4` -> `LightDir`), shown after an instruction's text.
    names: Vec<(String, String)>,
}

fn vec4(v: [f32; 4]) -> String {
    format!("({}, {}, {}, {})", v[0], v[1], v[2], v[3])
}

impl<'a> Recorder<'a> {
    pub fn new(program: &'a Program) -> Recorder<'a> {
        Recorder {
            program,
            steps: Vec::new(),
            lane: 0,
            names: Vec::new(),
        }
    }

    /// Follow lane `lane` of a batch, naming constant registers by `names` (register,
    /// name) in each step's text.
    pub fn for_lane(
        program: &'a Program,
        lane: usize,
        names: Vec<(String, String)>,
    ) -> Recorder<'a> {
        Recorder {
            lane,
            names,
            ..Recorder::new(program)
        }
    }

    pub fn finish(self, vertex: usize, outputs: Vec<f32>, error: Option<VmError>) -> Trace {
        Trace {
            vertex,
            steps: self.steps,
            outputs,
            error,
        }
    }

    fn push(&mut self, pc: usize, active: bool, effect: String) {
        let i = self.program.op_source[pc] as usize;
        // The matrix macros run as several ops: keep one step per instruction execution.
        if let Some(last) = self.steps.last_mut()
            && last.instruction == i
            && pc > 0
            && self.program.op_source[pc - 1] as usize == i
            && matches!(self.program.ops[pc], Op::Alu { .. } | Op::Pixel(_))
            && matches!(self.program.ops[pc - 1], Op::Alu { .. } | Op::Pixel(_))
        {
            last.effect = effect;
            last.active |= active;
            return;
        }
        let inst = &self.program.shader.instructions[i];
        let mut text = dxso::text::print_instruction(inst, self.program.shader.version);
        let named: Vec<String> = inst
            .srcs
            .iter()
            .filter(|s| s.reg.kind == dxso::ir::RegisterKind::Const)
            .filter_map(|s| {
                let reg = register_name(s.reg.kind, s.reg.number);
                let (_, name) = self.names.iter().find(|(r, _)| *r == reg)?;
                Some(format!("{reg} = {name}"))
            })
            .collect();
        if !named.is_empty() {
            text.push_str(" // ");
            text.push_str(&named.join(", "));
        }
        self.steps.push(TraceStep {
            instruction: i,
            text,
            active,
            effect,
        });
    }
}

impl Tracer for Recorder<'_> {
    const ENABLED: bool = true;

    fn after(&mut self, m: &Machine, pc: usize, op: &Op) {
        let inst = &self.program.shader.instructions[self.program.op_source[pc] as usize];
        let effect = match op {
            Op::Alu { dst, .. } => {
                let active = m.active_lane(self.lane)
                    && dst.pred.is_none_or(|p| {
                        let p0 = m.p0_lane(self.lane);
                        (0..4).any(|c| dst.mask >> c & 1 != 0 && p0[p.comps[c] as usize] != p.not)
                    });
                let effect = match dst.kind {
                    DstKind::Rows(row) => {
                        let name = inst.dst.map_or_else(
                            || "(scratch)".to_string(),
                            |d| register_name(d.reg.kind, d.reg.number),
                        );
                        format!(
                            "{} = {}",
                            name,
                            vec4(std::array::from_fn(|c| m.lane(row + c as u16, self.lane)))
                        )
                    }
                    DstKind::OutputByLoop(base) => {
                        format!("o{} (aL = {}) written", base + m.al(), m.al())
                    }
                    DstKind::Addr => {
                        let a = m.a0_lane(self.lane);
                        format!("a0 = ({}, {}, {}, {})", a[0], a[1], a[2], a[3])
                    }
                    DstKind::Pred => {
                        let p = m.p0_lane(self.lane);
                        format!("p0 = ({}, {}, {}, {})", p[0], p[1], p[2], p[3])
                    }
                };
                self.push(pc, active, effect);
                return;
            }
            Op::GatherConstA0 { .. }
            | Op::GatherConstAl { .. }
            | Op::GatherInputAl { .. }
            | Op::GatherInputA0 { .. } => return,
            Op::IfBool { .. } | Op::IfDyn { .. } => if m.active_lane(self.lane) {
                "taken"
            } else {
                "not taken"
            }
            .to_string(),
            Op::ElseDyn { .. } => if m.active_lane(self.lane) {
                "else taken"
            } else {
                "else not taken"
            }
            .to_string(),
            Op::Jump { .. } => "skips the else part".to_string(),
            Op::EndIfDyn => String::new(),
            Op::Loop { al: true, .. } => format!("aL = {}", m.al()),
            Op::Loop { .. } | Op::EndLoop { .. } => {
                if matches!(op, Op::EndLoop { .. }) && inst.opcode == dxso::Opcode::EndLoop {
                    format!("aL = {}", m.al())
                } else {
                    String::new()
                }
            }
            Op::Break { .. } => if m.active_lane(self.lane) {
                "continues"
            } else {
                "breaks"
            }
            .to_string(),
            Op::Call { .. } | Op::CallBool { .. } | Op::CallPred { .. } | Op::Ret => String::new(),
            Op::Pixel(p) => crate::pixel::exec::describe(m, p, inst, self.lane),
        };
        self.push(pc, m.active_lane(self.lane), effect);
    }
}
