//! Flow control: blocks balanced and nested within the version's limits, labels, calls
//! (forward only, nesting depth) and where `aL` may be read.

use super::*;

impl Validator<'_> {
    /// Flow-control structure, nesting limits, labels and calls.
    #[expect(
        clippy::too_many_lines,
        reason = "to be split along its phases (issue #28)"
    )]
    pub(super) fn flow(&mut self) {
        use Opcode::*;
        #[derive(Clone, Copy, PartialEq)]
        enum Block {
            IfStatic { has_else: bool },
            IfDynamic { has_else: bool },
            Loop,
            Rep,
        }
        let vs = self.vs();
        let n = self.n();
        let sw = self.sw();
        let loop_limit = match (vs, n) {
            (_, _) if sw => 4,
            (true, 0x200) => 1,
            (_, 0x201) => self
                .caps2()
                .static_flow_control_depth
                .max(if vs { 1 } else { 0 }),
            _ => 4,
        } as usize;
        let dyn_limit = match n {
            0x201 if !sw => self.caps2().dynamic_flow_control_depth,
            0x200 => 0,
            _ => 24,
        } as usize;
        let call_limit = match (vs, n) {
            (_, _) if sw => 4,
            (true, 0x200) => 1,
            (_, 0x201) => self.caps2().static_flow_control_depth.max(1),
            _ => 4,
        } as usize;
        let count_static = n < 0x300 && !sw;

        let mut stack: Vec<(Block, usize)> = Vec::new();
        let mut loops = 0usize;
        let mut aloops = 0usize;
        let mut dynamic = 0usize;
        let mut static_ifs = 0usize;
        let mut static_count = 0usize;
        let mut routine: Option<u32> = None; // None = main
        let mut after_ret = false;
        let mut labels: HashMap<u32, usize> = HashMap::new();
        let mut calls: Vec<(usize, Option<u32>, u32, bool, bool)> = Vec::new(); // (i, caller, callee, pred, in_loop)
        let mut al_uses: Vec<(usize, Option<u32>)> = Vec::new();
        let mut reported_count = false;

        let uses_al = |inst: &Instruction| {
            inst.srcs.iter().enumerate().any(|(k, s)| {
                (s.reg.kind == RegisterKind::Loop && !(inst.opcode == Loop && k == 0))
                    || s.relative.is_some_and(|r| r.reg.kind == RegisterKind::Loop)
            }) || inst
                .dst
                .is_some_and(|d| d.relative.is_some_and(|r| r.reg.kind == RegisterKind::Loop))
        };

        for (i, inst) in self.s.instructions.iter().enumerate() {
            let op = inst.opcode;
            if matches!(op, Comment | Dcl | Def | DefI | DefB) {
                continue;
            }
            if after_ret && op != Label {
                self.err(
                    Rule::Subroutines,
                    i,
                    "code after ret must start with a label",
                );
                after_ret = false;
            }
            if uses_al(inst) && aloops == 0 {
                al_uses.push((i, routine));
            }
            let pred_src = inst
                .srcs
                .iter()
                .any(|s| s.reg.kind == RegisterKind::Predicate);
            match op {
                If | IfC => {
                    let dynamic_if = op == IfC || pred_src;
                    if dynamic_if {
                        dynamic += 1;
                        if dynamic > dyn_limit {
                            self.err(
                                Rule::DynamicNesting,
                                i,
                                format!("dynamic flow control nested {dynamic} deep; the limit is {dyn_limit}"),
                            );
                        }
                        stack.push((Block::IfDynamic { has_else: false }, i));
                    } else {
                        static_ifs += 1;
                        static_count += 1;
                        if n >= 0x300 && static_ifs > 24 {
                            self.err(Rule::StaticIfNesting, i, "if b# nested deeper than 24");
                        }
                        stack.push((Block::IfStatic { has_else: false }, i));
                    }
                }
                Else => match stack.last_mut() {
                    Some((Block::IfStatic { has_else }, _)) if !*has_else => {
                        *has_else = true;
                        static_count += 1;
                    }
                    Some((Block::IfDynamic { has_else }, _)) if !*has_else => *has_else = true,
                    _ => self.err(Rule::Unbalanced, i, "else without a matching if"),
                },
                EndIf => match stack.last() {
                    Some((Block::IfStatic { .. }, _)) => {
                        stack.pop();
                        static_ifs -= 1;
                    }
                    Some((Block::IfDynamic { .. }, _)) => {
                        stack.pop();
                        dynamic -= 1;
                    }
                    _ => self.err(Rule::Unbalanced, i, "endif without a matching if"),
                },
                Loop | Rep => {
                    loops += 1;
                    static_count += 1;
                    if op == Loop {
                        aloops += 1;
                    }
                    if loops > loop_limit {
                        self.err(
                            Rule::LoopNesting,
                            i,
                            format!("loop/rep nested {loops} deep; the limit is {loop_limit}"),
                        );
                    }
                    stack.push((if op == Loop { Block::Loop } else { Block::Rep }, i));
                }
                EndLoop | EndRep => {
                    let want = if op == EndLoop {
                        Block::Loop
                    } else {
                        Block::Rep
                    };
                    if stack.last().map(|b| b.0) == Some(want) {
                        stack.pop();
                        loops -= 1;
                        if op == EndLoop {
                            aloops -= 1;
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
                Break | BreakC | BreakP => {
                    if loops == 0 {
                        self.err(Rule::BreakOutsideLoop, i, "break outside loop/rep");
                    }
                    if op != Break && dynamic + 1 > dyn_limit {
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
                Call | CallNz => {
                    let pred = op == CallNz && pred_src;
                    if !pred {
                        static_count += 1;
                    }
                    if pred && dynamic + 1 > dyn_limit {
                        self.err(
                            Rule::DynamicNesting,
                            i,
                            format!(
                                "callnz p0 needs one free dynamic level; the limit is {dyn_limit}"
                            ),
                        );
                    }
                    if let Some(l) = inst
                        .srcs
                        .first()
                        .filter(|s| s.reg.kind == RegisterKind::Label)
                    {
                        calls.push((i, routine, l.reg.number, pred, aloops > 0));
                    }
                }
                Ret => {
                    if let Some((_, at)) = stack.last() {
                        let at = *at;
                        self.err(
                            Rule::Unbalanced,
                            i,
                            format!(
                                "ret inside an open block (opened at instruction {})",
                                at + 1
                            ),
                        );
                        stack.clear();
                        loops = 0;
                        aloops = 0;
                        dynamic = 0;
                        static_ifs = 0;
                    }
                    after_ret = true;
                }
                Label => {
                    let l = inst.srcs[0].reg.number;
                    if routine.is_none() && !after_ret {
                        self.err(
                            Rule::Subroutines,
                            i,
                            "label only after the main program's ret",
                        );
                    }
                    if let Some(first) = labels.insert(l, i) {
                        self.err(
                            Rule::Subroutines,
                            i,
                            format!(
                                "label l{l} is defined twice (first at instruction {})",
                                first + 1
                            ),
                        );
                    }
                    routine = Some(l);
                    after_ret = false;
                }
                _ => {}
            }
            if count_static && static_count > 16 && !reported_count {
                reported_count = true;
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
        if let Some((b, at)) = stack.last() {
            let what = match b {
                Block::IfStatic { .. } | Block::IfDynamic { .. } => "if without endif",
                Block::Loop => "loop without endloop",
                Block::Rep => "rep without endrep",
            };
            self.err(Rule::Unbalanced, *at, what);
        }
        // Calls: targets defined, forward only, nesting depth.
        let mut graph: HashMap<Option<u32>, Vec<u32>> = HashMap::new();
        for &(i, caller, callee, _, _) in &calls {
            match labels.get(&callee) {
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
                Some(_) => graph.entry(caller).or_default().push(callee),
            }
        }
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
        let d = depth(&graph, None, &mut Vec::new());
        if d > call_limit {
            self.push(
                Rule::CallNesting,
                Severity::Error,
                calls.first().map(|c| c.0),
                format!("calls nest {d} deep; {} allows {call_limit}", self.v),
            );
        }
        // aL outside loops: allowed in a subroutine only if every call to it is inside a loop.
        for (i, r) in al_uses {
            let ok = match r {
                None => false,
                Some(l) => {
                    let sites: Vec<_> = calls.iter().filter(|c| c.2 == l).collect();
                    !sites.is_empty() && sites.iter().all(|c| c.4)
                }
            };
            if !ok {
                self.err(Rule::LoopCounterOutsideLoop, i, "aL is used outside a loop");
            }
        }
    }
}
