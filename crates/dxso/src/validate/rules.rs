//! Every validation rule, with its stable id, in one place.

macro_rules! rules {
    ($( $name:ident = $id:literal, $summary:literal, $spec:literal; )*) => {
        /// A validation rule. The id (`V001`..) is stable: scripts may match on it.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Rule {
            $(
                #[doc = concat!($id, ": ", $summary)]
                $name,
            )*
        }

        /// (rule, id, one-line explanation, spec reference), in id order.
        pub static RULES: &[(Rule, &str, &str, &str)] = &[
            $( (Rule::$name, $id, $summary, $spec), )*
        ];
    };
}

rules! {
    InstructionVersion = "V001", "the instruction does not exist in this shader version", "bytecode.md §10; instructions.md §3, §5";
    CapsFeature = "V002", "the instruction or feature needs a device cap the profile lacks (vs_2_x/ps_2_x predication, dynamic flow control)", "registers.md §4, §9";
    RegisterFile = "V003", "the register file does not exist in this version, or is not allowed for this operand", "registers.md §3-§5";
    RegisterRange = "V004", "the register number is outside the file (NumTemps, MaxVertexShaderConst, labels, ...)", "registers.md §3-§5, §9";
    ReadOnly = "V005", "a read-only register (v#, c#, i#, b#, s#, aL) is written", "registers.md §3, §5";
    WriteOnly = "V006", "an output register is read", "registers.md §3, §5";
    ReadPorts = "V007", "more distinct registers of one file than its read ports (vs: 1 v#, 1 c#, 3 r#; ps_3_0: 1 v#; ps_1_x: 2 v#, 2 c#, ...)", "registers.md §2-§5, §8; ps_1_x/ps_2_0/ps_2_x/ps_3_0 Registers pages";
    ReadsPerInstruction = "V008", "more source operands from one file than the version allows (c# twice in vs_2_x/ps_2_x, b#/i#/p0/s# once, t# once in ps_2_x)", "registers.md §2 (interpretation); ps_2_0/ps_2_x Registers pages";
    ScalarOutput = "V009", "oFog and oPts are scalar: write them with one component (or no mask)", "registers.md §7";
    RelativeAddressing = "V010", "relative addressing of a file that cannot be indexed, or with the wrong index register", "registers.md §6; bytecode.md §7";
    InputNotDeclared = "V011", "an input register is read but not declared with dcl", "registers.md §3, §5, §8";
    OutputNotDeclared = "V012", "a vs_3_0 output register is written but not declared with a semantic", "registers.md §7";
    SamplerNotDeclared = "V013", "a sampler is used but not declared with dcl_2d/dcl_cube/dcl_volume", "instructions.md §6";
    DclPlacement = "V014", "dcl after the first executable instruction", "bytecode.md §1; dcl_usage.md §2";
    DclDuplicate = "V015", "a register or semantic is declared twice, or declared masks overlap", "registers.md §7; dcl_usage.md §4";
    DclInvalid = "V016", "a dcl names a register, usage, mask or sampler type this version does not allow", "dcl_usage.md §2-§3";
    DefTarget = "V017", "def/defi/defb names the wrong file, a mask, or a register outside the file", "bytecode.md §9";
    DefPlacement = "V018", "def/defi/defb after executable code (warning; dxso applies it anyway, choice C13)", "instructions.md C13";
    PositionOutput = "V019", "the shader does not output a position (oPos, or a vs_3_0 dcl_position o# with mask .xyzw)", "registers.md §7";
    OutputBudget = "V020", "vs_3_0 output registers: psize must be alone with a full mask; twelve registers need psize", "registers.md §7";
    TexCoordOutputMask = "V021", "oT# writes must cover .x, .xy, .xyz or .xyzw (warning)", "registers.md §7";
    OutputIndexing = "V022", "outputs indexed by aL need position in o0 and psize in o1, and never index them", "registers.md §6";
    OperandKind = "V030", "an operand is of a register kind the instruction does not take", "instructions.md §3-§6";
    WriteMask = "V031", "the write mask is not one the instruction allows (sincos .x/.y/.xy, crs without w, m3x3 .xyz, ...)", "instructions.md §3";
    Swizzle = "V032", "a swizzle the instruction does not allow (replicate required, or none allowed)", "instructions.md §2, §3, §5";
    SourceModifier = "V033", "a source modifier this version or operand does not allow", "bytecode.md §6; instructions.md §2";
    ResultModifier = "V034", "a result modifier or shift this version or instruction does not allow", "bytecode.md §5; instructions.md §2";
    ScalarMask = "V035", "a scalar instruction writes several components (warning; the result is replicated, choice C9)", "instructions.md C9";
    DstAliasing = "V036", "the destination may not be the same register as this source", "instructions.md §3";
    SinCosConstants = "V037", "vs_2_0/vs_2_x sincos needs two different c# as its extra sources", "bytecode.md note B";
    Predication = "V038", "predication where it is not allowed (flow control, vs_2_x sincos with a non-replicate predicate, bad predicate)", "bytecode.md §8";
    MovA0 = "V039", "mov a0 in vs_2_0+ (warning; executed as mova, choice C2)", "instructions.md C2";
    ReadBeforeWrite = "V040", "a temporary, a0 or p0 is read before it is written", "registers.md §2; instructions.md C14";
    SgnScratch = "V041", "sgn's extra sources must be two different temporaries", "instructions.md §3";
    AbsConstantMix = "V042", "a vs_3_0 instruction reads c# both with and without _abs", "instructions.md C10";
    Unbalanced = "V050", "if/else/endif, loop/endloop or rep/endrep do not pair up", "registers.md §10";
    LoopNesting = "V051", "loop/rep nested deeper than the static flow-control depth", "registers.md §10";
    DynamicNesting = "V052", "dynamic flow control nested deeper than DynamicFlowControlDepth", "registers.md §10";
    StaticIfNesting = "V053", "if b# nested deeper than 24", "registers.md §10";
    CallNesting = "V054", "calls nested deeper than the version allows", "registers.md §10";
    StaticFlowCount = "V055", "more than 16 static flow-control instructions in vs_2_0/vs_2_x", "instructions.md §5";
    LoopCounterOutsideLoop = "V056", "aL used outside a loop", "registers.md §6";
    BreakOutsideLoop = "V057", "break outside loop/rep", "instructions.md §5";
    Subroutines = "V058", "labels and subroutines: label only after ret, unique, defined, called forward only", "instructions.md §5";
    InstructionSlots = "V059", "more instruction slots than the version and caps allow", "registers.md §9";
    OperandCount = "V060", "an instruction has the wrong number of operands", "bytecode.md §10";
    InstructionControl = "V061", "instruction-control bits (16-23) the opcode does not define (only setp/ifc/breakc comparisons and ps_2_0+ texldp/texldb have them)", "bytecode.md §3";
    CoIssue = "V062", "the co-issue bit outside ps_1_x", "bytecode.md §3";
}

impl Rule {
    fn entry(self) -> &'static (Rule, &'static str, &'static str, &'static str) {
        RULES
            .iter()
            .find(|r| r.0 == self)
            .expect("every rule is in RULES")
    }
    /// The stable id, `V001`...
    pub fn id(self) -> &'static str {
        self.entry().1
    }
    /// One line saying what the rule checks.
    pub fn summary(self) -> &'static str {
        self.entry().2
    }
    /// Where the rule comes from in `../shared/spec`.
    pub fn spec(self) -> &'static str {
        self.entry().3
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn ids_are_unique_and_sorted() {
        for w in super::RULES.windows(2) {
            assert!(w[0].1 < w[1].1, "{} !< {}", w[0].1, w[1].1);
        }
    }
}
