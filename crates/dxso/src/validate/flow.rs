//! Flow control: blocks balanced and nested within the version's limits, labels, calls
//! (forward only, nesting depth) and where `aL` may be read.

use super::*;

/// An open flow-control block.
#[derive(Clone, Copy, PartialEq)]
enum Block {
    IfStatic { has_else: bool },
    IfDynamic { has_else: bool },
    Loop,
    Rep,
}

/// The version's flow-control limits (and the caps' for the 2_x versions).
struct Limits {
    /// loop/rep nesting depth.
    loops: usize,
    /// Dynamic flow-control nesting depth (`if_comp`, `if p0`, `break_comp`, `callnz p0`).
    dynamic: usize,
    /// Call nesting depth.
    calls: usize,
    /// Whether the version allows at most 16 static flow-control instructions.
    count_static: bool,
}

/// One call site.
struct CallSite {
    /// The `call`/`callnz` instruction.
    at: usize,
    /// The routine it is in (`None`: the main program).
    caller: Option<u32>,
    /// The label it calls.
    callee: u32,
    /// Inside a `loop`, where `aL` is defined.
    in_loop: bool,
}

/// What the walk over the instructions has seen so far.
#[derive(Default)]
struct Walk {
    /// The open blocks and the instruction that opened each.
    stack: Vec<(Block, usize)>,
    /// Open loop/rep blocks.
    loops: usize,
    /// Open loop blocks (which define `aL`).
    aloops: usize,
    /// Open dynamic blocks.
    dynamic: usize,
    /// Open static ifs.
    static_ifs: usize,
    /// Static flow-control instructions so far.
    static_count: usize,
    /// The routine being walked (`None`: the main program).
    routine: Option<u32>,
    /// The previous instruction was a `ret` (code after it must start with a label).
    after_ret: bool,
    /// Where each label is defined.
    labels: HashMap<u32, usize>,
    /// Every call to a label.
    calls: Vec<CallSite>,
    /// `aL` read outside a loop: the instruction and its routine.
    al_uses: Vec<(usize, Option<u32>)>,
    /// The static count's error was reported (it is reported once).
    reported_count: bool,
}

/// Whether `inst` reads `aL` (as a source, or as the relative address of an operand).
fn uses_al(inst: &Instruction) -> bool {
    inst.srcs.iter().enumerate().any(|(k, s)| {
        (s.reg.kind == RegisterKind::Loop && !(inst.opcode == Opcode::Loop && k == 0))
            || s.relative.is_some_and(|r| r.reg.kind == RegisterKind::Loop)
    }) || inst
        .dst
        .is_some_and(|d| d.relative.is_some_and(|r| r.reg.kind == RegisterKind::Loop))
}

/// How deep the calls from `node` nest (64 for a cycle or a chain longer than 64).
fn depth(
    graph: &HashMap<Option<u32>, Vec<u32>>,
    node: Option<u32>,
    seen: &mut Vec<Option<u32>>,
) -> usize {
    if seen.contains(&node) || seen.len() > 64 {
        return 64;
    }
    seen.push(node);
    let d = graph.get(&node).map_or(0, |cs| {
        cs.iter()
            .map(|&c| 1 + depth(graph, Some(c), seen))
            .max()
            .unwrap_or(0)
    });
    seen.pop();
    d
}

impl Validator<'_> {
    /// Flow-control structure, nesting limits, labels and calls.
    pub(super) fn flow(&mut self) {
        let limits = self.flow_limits();
        let mut w = Walk::default();
        for (i, inst) in self.s.instructions.iter().enumerate() {
            self.flow_step(&limits, &mut w, i, inst);
        }
        if let Some((b, at)) = w.stack.last() {
            let what = match b {
                Block::IfStatic { .. } | Block::IfDynamic { .. } => "if without endif",
                Block::Loop => "loop without endloop",
                Block::Rep => "rep without endrep",
            };
            self.err(Rule::Unbalanced, *at, what);
        }
        self.flow_calls(&limits, &w);
        self.flow_al_uses(&w);
    }

    /// The nesting limits of this version and caps.
    fn flow_limits(&self) -> Limits {
        let vs = self.vs();
        let n = self.n();
        let sw = self.sw();
        let loops = match (vs, n) {
            (_, _) if sw => 4,
            (true, 0x200) => 1,
            (_, 0x201) => self
                .caps2()
                .static_flow_control_depth
                .max(if vs { 1 } else { 0 }),
            _ => 4,
        } as usize;
        let dynamic = match n {
            0x201 if !sw => self.caps2().dynamic_flow_control_depth,
            0x200 => 0,
            _ => 24,
        } as usize;
        let calls = match (vs, n) {
            (_, _) if sw => 4,
            (true, 0x200) => 1,
            (_, 0x201) => self.caps2().static_flow_control_depth.max(1),
            _ => 4,
        } as usize;
        Limits {
            loops,
            dynamic,
            calls,
            count_static: n < 0x300 && !sw,
        }
    }

    /// Walk one instruction: open and close blocks, record labels and calls.
    fn flow_step(&mut self, limits: &Limits, w: &mut Walk, i: usize, inst: &Instruction) {
        use Opcode::*;
        let op = inst.opcode;
        if matches!(op, Comment | Dcl | Def | DefI | DefB) {
            return;
        }
        if w.after_ret && op != Label {
            self.err(
                Rule::Subroutines,
                i,
                "code after ret must start with a label",
            );
            w.after_ret = false;
        }
        if uses_al(inst) && w.aloops == 0 {
            w.al_uses.push((i, w.routine));
        }
        let pred_src = inst
            .srcs
            .iter()
            .any(|s| s.reg.kind == RegisterKind::Predicate);
        match op {
            If | IfC | Else | EndIf => self.flow_if(limits, w, i, op, pred_src),
            Loop | Rep | EndLoop | EndRep | Break | BreakC | BreakP => {
                self.flow_loop(limits, w, i, inst)
            }
            Call | CallNz | Ret | Label => self.flow_routine(limits, w, i, inst, pred_src),
            _ => {}
        }
        if limits.count_static && w.static_count > 16 && !w.reported_count {
            w.reported_count = true;
            self.err(
                Rule::StaticFlowCount,
                i,
                format!(
                    "more than 16 static flow-control instructions in {}",
                    self.v
                ),
            );
        }
    }

    /// `if`, `if_comp`, `else` and `endif`.
    fn flow_if(&mut self, limits: &Limits, w: &mut Walk, i: usize, op: Opcode, pred_src: bool) {
        use Opcode::*;
        let dyn_limit = limits.dynamic;
        match op {
            If | IfC => {
                let dynamic_if = op == IfC || pred_src;
                if dynamic_if {
                    w.dynamic += 1;
                    if w.dynamic > dyn_limit {
                        self.err(
                            Rule::DynamicNesting,
                            i,
                            format!(
                                "dynamic flow control nested {} deep; the limit is {dyn_limit}",
                                w.dynamic
                            ),
                        );
                    }
                    w.stack.push((Block::IfDynamic { has_else: false }, i));
                } else {
                    w.static_ifs += 1;
                    w.static_count += 1;
                    if self.n() >= 0x300 && w.static_ifs > 24 {
                        self.err(Rule::StaticIfNesting, i, "if b# nested deeper than 24");
                    }
                    w.stack.push((Block::IfStatic { has_else: false }, i));
                }
            }
            Else => match w.stack.last_mut() {
                Some((Block::IfStatic { has_else }, _)) if !*has_else => {
                    *has_else = true;
                    w.static_count += 1;
                }
                Some((Block::IfDynamic { has_else }, _)) if !*has_else => *has_else = true,
                _ => self.err(Rule::Unbalanced, i, "else without a matching if"),
            },
            _ => match w.stack.last() {
                Some((Block::IfStatic { .. }, _)) => {
                    w.stack.pop();
                    w.static_ifs -= 1;
                }
                Some((Block::IfDynamic { .. }, _)) => {
                    w.stack.pop();
                    w.dynamic -= 1;
                }
                _ => self.err(Rule::Unbalanced, i, "endif without a matching if"),
            },
        }
    }

    /// `loop`, `rep`, their ends and the breaks.
    fn flow_loop(&mut self, limits: &Limits, w: &mut Walk, i: usize, inst: &Instruction) {
        use Opcode::*;
        let op = inst.opcode;
        let (loop_limit, dyn_limit) = (limits.loops, limits.dynamic);
        match op {
            Loop | Rep => {
                w.loops += 1;
                w.static_count += 1;
                if op == Loop {
                    w.aloops += 1;
                }
                if w.loops > loop_limit {
                    self.err(
                        Rule::LoopNesting,
                        i,
                        format!(
                            "loop/rep nested {} deep; the limit is {loop_limit}",
                            w.loops
                        ),
                    );
                }
                w.stack
                    .push((if op == Loop { Block::Loop } else { Block::Rep }, i));
            }
            EndLoop | EndRep => {
                let want = if op == EndLoop {
                    Block::Loop
                } else {
                    Block::Rep
                };
                if w.stack.last().map(|b| b.0) == Some(want) {
                    w.stack.pop();
                    w.loops -= 1;
                    if op == EndLoop {
                        w.aloops -= 1;
                    }
                } else {
                    let m = op.info().mnemonic;
                    self.err(
                        Rule::Unbalanced,
                        i,
                        format!("{m} without a matching opening"),
                    );
                }
            }
            _ => {
                if w.loops == 0 {
                    self.err(Rule::BreakOutsideLoop, i, "break outside loop/rep");
                }
                if op != Break && w.dynamic + 1 > dyn_limit {
                    self.err(
                        Rule::DynamicNesting,
                        i,
                        format!(
                            "{} needs one free dynamic level; the limit is {dyn_limit}",
                            op.mnemonic(inst.control, self.v)
                        ),
                    );
                }
            }
        }
    }

    /// `call`, `callnz`, `ret` and `label`.
    fn flow_routine(
        &mut self,
        limits: &Limits,
        w: &mut Walk,
        i: usize,
        inst: &Instruction,
        pred_src: bool,
    ) {
        use Opcode::*;
        let op = inst.opcode;
        let dyn_limit = limits.dynamic;
        match op {
            Call | CallNz => {
                let pred = op == CallNz && pred_src;
                if !pred {
                    w.static_count += 1;
                }
                if pred && w.dynamic + 1 > dyn_limit {
                    self.err(
                        Rule::DynamicNesting,
                        i,
                        format!("callnz p0 needs one free dynamic level; the limit is {dyn_limit}"),
                    );
                }
                if let Some(l) = inst
                    .srcs
                    .first()
                    .filter(|s| s.reg.kind == RegisterKind::Label)
                {
                    w.calls.push(CallSite {
                        at: i,
                        caller: w.routine,
                        callee: l.reg.number,
                        in_loop: w.aloops > 0,
                    });
                }
            }
            Ret => {
                if let Some((_, at)) = w.stack.last() {
                    let at = *at;
                    self.err(
                        Rule::Unbalanced,
                        i,
                        format!(
                            "ret inside an open block (opened at instruction {})",
                            at + 1
                        ),
                    );
                    w.stack.clear();
                    w.loops = 0;
                    w.aloops = 0;
                    w.dynamic = 0;
                    w.static_ifs = 0;
                }
                w.after_ret = true;
            }
            _ => {
                let l = inst.srcs[0].reg.number;
                if w.routine.is_none() && !w.after_ret {
                    self.err(
                        Rule::Subroutines,
                        i,
                        "label only after the main program's ret",
                    );
                }
                if let Some(first) = w.labels.insert(l, i) {
                    self.err(
                        Rule::Subroutines,
                        i,
                        format!(
                            "label l{l} is defined twice (first at instruction {})",
                            first + 1
                        ),
                    );
                }
                w.routine = Some(l);
                w.after_ret = false;
            }
        }
    }

    /// Calls: targets defined, forward only, nesting depth.
    fn flow_calls(&mut self, limits: &Limits, w: &Walk) {
        let mut graph: HashMap<Option<u32>, Vec<u32>> = HashMap::new();
        for c in &w.calls {
            let (i, callee) = (c.at, c.callee);
            match w.labels.get(&callee) {
                None => self.err(
                    Rule::Subroutines,
                    i,
                    format!("l{callee} is called but never defined"),
                ),
                Some(&at) if at < i => self.err(
                    Rule::Subroutines,
                    i,
                    format!("l{callee} is defined before the call; calls go forward only"),
                ),
                Some(_) => graph.entry(c.caller).or_default().push(callee),
            }
        }
        let d = depth(&graph, None, &mut Vec::new());
        let call_limit = limits.calls;
        if d > call_limit {
            self.push(
                Rule::CallNesting,
                Severity::Error,
                w.calls.first().map(|c| c.at),
                format!("calls nest {d} deep; {} allows {call_limit}", self.v),
            );
        }
    }

    /// aL outside loops: allowed in a subroutine only if every call to it is inside a loop.
    fn flow_al_uses(&mut self, w: &Walk) {
        for &(i, r) in &w.al_uses {
            let ok = match r {
                None => false,
                Some(l) => {
                    let sites: Vec<_> = w.calls.iter().filter(|c| c.callee == l).collect();
                    !sites.is_empty() && sites.iter().all(|c| c.in_loop)
                }
            };
            if !ok {
                self.err(Rule::LoopCounterOutsideLoop, i, "aL is used outside a loop");
            }
        }
    }
}
