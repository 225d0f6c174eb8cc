# Maps references to the former external specifications onto the project's own documents.
# Usage: sed -i -f tools/refmap.sed FILE...   (GNU sed). Order matters: lists and
# subsections before sections, sections before bare file names.

# Paths to the specification folder beside the repository.
s#\(\.\./\)*shared/\(LANGUAGE\|DESIGN\|TAPE\|REVERSIBLE\|BENCHMARKS\)\.md#\2.md#g

# Lists of sections and other special forms.
s#LANGUAGE\.md sections 4–6, 11, 12#docs/language.md §Declarations, §Expressions, §Patterns, §Modules, §Attributes#g
s#LANGUAGE\.md 10\.1, 10\.7#docs/language.md §Differentiation operators, §Custom derivatives#g
s#LANGUAGE\.md 10\.3 and 10\.4#docs/language.md §Integer and boolean leaves and §Partial derivatives#g
s#LANGUAGE\.md 13\.2 and 15#docs/cli.md §gradus test and docs/language.md §Test blocks#g
s#LANGUAGE\.md 3\.2, 6#docs/language.md §Compound types, §Patterns#g
s#LANGUAGE\.md 5\.5 and 5\.6#docs/language.md §Indexing and slicing and §Ranges#g
s#LANGUAGE\.md 8 and 9\.1#docs/language.md §Evaluation and §Array combinators#g
s#LANGUAGE\.md 8\.3 and 9\.7#docs/language.md §Floating-point arithmetic and §Numeric modules#g
s#LANGUAGE\.md 8\.2; floats follow 8\.3#docs/language.md §Integer arithmetic; floats follow §Floating-point arithmetic#g
s#LANGUAGE\.md 8\.2 (integers) and 8\.3 (floating point)#docs/language.md §Integer arithmetic and §Floating-point arithmetic#g
s#LANGUAGE\.md §10\.4, REVERSIBLE\.md §7\.3#docs/language.md §Partial derivatives, docs/reversible.md §Adjoint rules#g
s#LANGUAGE\.md appendix A#docs/language.md §A complete example#g
s#REVERSIBLE\.md §11\.1, §8#docs/reversible.md §Examples and tests, §API#g
s#REVERSIBLE\.md §11\.1–§11\.2#docs/reversible.md §Examples and tests and benchmarks/README.md#g
s#REVERSIBLE\.md §3\.4, §7\.3, §7\.8#docs/reversible.md §Instructions, §Adjoint rules, §New instructions#g
s#REVERSIBLE\.md §3–§5#docs/reversible.md §The statement language, §The inverse, §Invertibility errors#g
s#REVERSIBLE\.md §6\.5, §11\.1#docs/reversible.md §Numeric types, §Examples and tests#g
s#TAPE\.md §2 / §11\.7#docs/tape.md §Concepts / §Tests and benchmarks#g
s#TAPE\.md §4, §5\.4, §5\.5#docs/tape.md §The sequential algorithm, §Parallel recording and pullback#g
s#TAPE\.md §5\.1, §5\.3#docs/tape.md §Parallel recording and pullback#g
s#TAPE\.md §3\.6), the job table (§3\.3)#docs/tape.md §Data structures), the job table#g
s#the 20% TAPE\.md allows#the fifth of an operation that docs/tape.md §Data structures allows#g
s#BENCHMARKS\.md 2\.3 and 2\.7#benchmarks/README.md §BA#g
s#BENCHMARKS\.md 6 and 7#benchmarks/README.md §NNMF and §micro benchmarks#g
s#BENCHMARKS\.md §1\.8–§1\.9#benchmarks/README.md §GMM#g
s#BENCHMARKS\.md §2\.1, §2\.4#benchmarks/README.md §BA#g
s#BENCHMARKS\.md` §1\.5, §2\.4, §3\.5 and §4\.4#benchmarks/README.md` §GMM, §BA, §HAND and §LSTM#g
s#BENCHMARKS\.md (k-means §5\.4)#benchmarks/README.md (k-means)#g
s#DESIGN\.md "Automatic differentiation"#docs/design.md §Automatic differentiation#g
s#DESIGN\.md, "Optimiser"#docs/design.md §Optimiser#g
s#DESIGN\.md, "Core IR"#docs/design.md §Core IR#g
s#as DESIGN\.md requires#as docs/design.md §The compiler pipeline says#g

# LANGUAGE.md, numbered sections (subsections first).
s#LANGUAGE\.md\(`\?\) \(§\|section \|sections \)\?10\.1\b#docs/language.md\1 §Differentiation operators#g
s#LANGUAGE\.md\(`\?\) \(§\|section \|sections \)\?10\.2\b#docs/language.md\1 §What the derivatives are#g
s#LANGUAGE\.md\(`\?\) \(§\|section \|sections \)\?10\.3\b#docs/language.md\1 §Integer and boolean leaves#g
s#LANGUAGE\.md\(`\?\) \(§\|section \|sections \)\?10\.4\b#docs/language.md\1 §Partial derivatives#g
s#LANGUAGE\.md\(`\?\) \(§\|section \|sections \)\?10\.5\b#docs/language.md\1 §Array operations#g
s#LANGUAGE\.md\(`\?\) \(§\|section \|sections \)\?10\.6\b#docs/language.md\1 §Differentiation operators#g
s#LANGUAGE\.md\(`\?\) \(§\|section \|sections \)\?10\.7\b#docs/language.md\1 §Custom derivatives#g
s#LANGUAGE\.md\(`\?\) \(§\|section \|sections \)\?10\.8\b#docs/language.md\1 §Attributes#g
s#LANGUAGE\.md\(`\?\) \(§\|section \|sections \)\?11\.1\b#docs/language.md\1 §Modules#g
s#LANGUAGE\.md\(`\?\) \(§\|section \|sections \)\?11\.2\b#docs/language.md\1 §Modules#g
s#LANGUAGE\.md\(`\?\) \(§\|section \|sections \)\?13\.1\b#docs/cli.md\1 §gradus run#g
s#LANGUAGE\.md\(`\?\) \(§\|section \|sections \)\?13\.2\b#docs/cli.md\1 §gradus test#g
s#LANGUAGE\.md\(`\?\) \(§\|section \|sections \)\?13\.3\b#docs/cli.md\1 §gradus bench#g
s#LANGUAGE\.md\(`\?\) \(§\|section \|sections \)\?14\.1\b#docs/language.md\1 §Textual format#g
s#LANGUAGE\.md\(`\?\) \(§\|section \|sections \)\?14\.2\b#docs/language.md\1 §Binary format#g
s#LANGUAGE\.md\(`\?\) \(§\|section \|sections \)\?14\.3\b#docs/language.md\1 §Binary format#g
s#LANGUAGE\.md\(`\?\) \(§\|section \|sections \)\?14\.4\b#docs/language.md\1 §Entry-point arguments#g
s#LANGUAGE\.md\(`\?\) \(§\|section \|sections \)\?15\.1\b#docs/language.md\1 §Block syntax#g
s#LANGUAGE\.md\(`\?\) \(§\|section \|sections \)\?15\.2\b#docs/language.md\1 §Block syntax#g
s#LANGUAGE\.md\(`\?\) \(§\|section \|sections \)\?15\.3\b#docs/language.md\1 §Random inputs#g
s#LANGUAGE\.md\(`\?\) \(§\|section \|sections \)\?15\.4\b#docs/language.md\1 §Expected results#g
s#LANGUAGE\.md\(`\?\) \(§\|section \|sections \)\?15\.5\b#docs/language.md\1 §Tags#g
s#LANGUAGE\.md\(`\?\) \(§\|section \|sections \)\?15\.6\b#docs/language.md\1 §Comparing values#g
s#LANGUAGE\.md\(`\?\) \(§\|section \|sections \)\?15\.7\b#docs/language.md\1 §Report#g
s#LANGUAGE\.md\(`\?\) \(§\|section \|sections \)\?15\.8\b#docs/language.md\1 §Test blocks#g
s#LANGUAGE\.md\(`\?\) \(§\|section \|sections \)\?2\.1\b#docs/language.md\1 §Comments#g
s#LANGUAGE\.md\(`\?\) \(§\|section \|sections \)\?2\.2\b#docs/language.md\1 §Names and keywords#g
s#LANGUAGE\.md\(`\?\) \(§\|section \|sections \)\?2\.3\b#docs/language.md\1 §Numeric literals#g
s#LANGUAGE\.md\(`\?\) \(§\|section \|sections \)\?2\.4\b#docs/language.md\1 §Operators#g
s#LANGUAGE\.md\(`\?\) \(§\|section \|sections \)\?2\.5\b#docs/language.md\1 §Brackets and spacing#g
s#LANGUAGE\.md\(`\?\) \(§\|section \|sections \)\?2\.6\b#docs/language.md\1 §Brackets and spacing#g
s#LANGUAGE\.md\(`\?\) \(§\|section \|sections \)\?3\.1\b#docs/language.md\1 §Primitive types#g
s#LANGUAGE\.md\(`\?\) \(§\|section \|sections \)\?3\.2\b#docs/language.md\1 §Compound types#g
s#LANGUAGE\.md\(`\?\) \(§\|section \|sections \)\?3\.3\b#docs/language.md\1 §Sizes#g
s#LANGUAGE\.md\(`\?\) \(§\|section \|sections \)\?3\.4\b#docs/language.md\1 §Type parameters#g
s#LANGUAGE\.md\(`\?\) \(§\|section \|sections \)\?5\.1\b#docs/language.md\1 §Expression forms#g
s#LANGUAGE\.md\(`\?\) \(§\|section \|sections \)\?5\.2\b#docs/language.md\1 §Precedence#g
s#LANGUAGE\.md\(`\?\) \(§\|section \|sections \)\?5\.3\b#docs/language.md\1 §Sections#g
s#LANGUAGE\.md\(`\?\) \(§\|section \|sections \)\?5\.4\b#docs/language.md\1 §Conditionals and loops#g
s#LANGUAGE\.md\(`\?\) \(§\|section \|sections \)\?5\.5\b#docs/language.md\1 §Indexing and slicing#g
s#LANGUAGE\.md\(`\?\) \(§\|section \|sections \)\?5\.6\b#docs/language.md\1 §Ranges#g
s#LANGUAGE\.md\(`\?\) \(§\|section \|sections \)\?7\.1\b#docs/language.md\1 §Type inference#g
s#LANGUAGE\.md\(`\?\) \(§\|section \|sections \)\?7\.2\b#docs/language.md\1 §Overloaded literals and operators#g
s#LANGUAGE\.md 7\.3 rule [0-9]\+#docs/language.md §Size rules#g
s#LANGUAGE\.md\(`\?\) \(§\|section \|sections \)\?7\.3\b#docs/language.md\1 §Size rules#g
s#LANGUAGE\.md\(`\?\) \(§\|section \|sections \)\?7\.4\b#docs/language.md\1 §Uniqueness#g
s#LANGUAGE\.md\(`\?\) \(§\|section \|sections \)\?7\.5\b#docs/language.md\1 §Functions as values#g
s#LANGUAGE\.md\(`\?\) \(§\|section \|sections \)\?8\.1\b#docs/language.md\1 §Evaluation order#g
s#LANGUAGE\.md\(`\?\) \(§\|section \|sections \)\?8\.2\b#docs/language.md\1 §Integer arithmetic#g
s#LANGUAGE\.md\(`\?\) \(§\|section \|sections \)\?8\.3\b#docs/language.md\1 §Floating-point arithmetic#g
s#LANGUAGE\.md\(`\?\) \(§\|section \|sections \)\?8\.4\b#docs/language.md\1 §Arrays at run time#g
s#LANGUAGE\.md\(`\?\) \(§\|section \|sections \)\?8\.5\b#docs/language.md\1 §Run-time errors#g
s#LANGUAGE\.md\(`\?\) \(§\|section \|sections \)\?9\.1\b#docs/language.md\1 §Array combinators#g
s#LANGUAGE\.md\(`\?\) \(§\|section \|sections \)\?9\.2\b#docs/language.md\1 §Array construction and shape#g
s#LANGUAGE\.md\(`\?\) \(§\|section \|sections \)\?9\.3\b#docs/language.md\1 §Array construction and shape#g
s#LANGUAGE\.md\(`\?\) \(§\|section \|sections \)\?9\.4\b#docs/language.md\1 §Other prelude functions#g
s#LANGUAGE\.md\(`\?\) \(§\|section \|sections \)\?9\.5\b#docs/language.md\1 §Differentiation operators#g
s#LANGUAGE\.md\(`\?\) \(§\|section \|sections \)\?9\.6\b#docs/language.md\1 §Other prelude functions#g
s#LANGUAGE\.md\(`\?\) \(§\|section \|sections \)\?9\.7\b#docs/language.md\1 §Numeric modules#g
s#LANGUAGE\.md\(`\?\) \(§\|section \|sections \)\?10\b#docs/language.md\1 §Differentiation#g
s#LANGUAGE\.md\(`\?\) \(§\|section \|sections \)\?11\b#docs/language.md\1 §Modules#g
s#LANGUAGE\.md\(`\?\) \(§\|section \|sections \)\?12\b#docs/language.md\1 §Attributes#g
s#LANGUAGE\.md\(`\?\) \(§\|section \|sections \)\?13\b#docs/cli.md\1#g
s#LANGUAGE\.md\(`\?\) \(§\|section \|sections \)\?14\b#docs/language.md\1 §Value formats#g
s#LANGUAGE\.md\(`\?\) \(§\|section \|sections \)\?15\b#docs/language.md\1 §Test blocks#g
s#LANGUAGE\.md\(`\?\) \(§\|section \|sections \)\?1\b#docs/language.md\1 §Programs and entry points#g
s#LANGUAGE\.md\(`\?\) \(§\|section \|sections \)\?2\b#docs/language.md\1 §Lexical syntax#g
s#LANGUAGE\.md\(`\?\) \(§\|section \|sections \)\?3\b#docs/language.md\1 §Types#g
s#LANGUAGE\.md\(`\?\) \(§\|section \|sections \)\?4\b#docs/language.md\1 §Declarations#g
s#LANGUAGE\.md\(`\?\) \(§\|section \|sections \)\?5\b#docs/language.md\1 §Expressions#g
s#LANGUAGE\.md\(`\?\) \(§\|section \|sections \)\?6\b#docs/language.md\1 §Patterns#g
s#LANGUAGE\.md\(`\?\) \(§\|section \|sections \)\?7\b#docs/language.md\1 §Type checking#g
s#LANGUAGE\.md\(`\?\) \(§\|section \|sections \)\?8\b#docs/language.md\1 §Evaluation#g
s#LANGUAGE\.md\(`\?\) \(§\|section \|sections \)\?9\b#docs/language.md\1 §The prelude#g

# TAPE.md, numbered sections (subsections first).
s#TAPE\.md\(`\?\) \(§\|section \|sections \)\?11\.1\b#docs/tape.md\1 §Tests and benchmarks#g
s#TAPE\.md\(`\?\) \(§\|section \|sections \)\?11\.2\b#docs/tape.md\1 §Tests and benchmarks#g
s#TAPE\.md\(`\?\) \(§\|section \|sections \)\?11\.3\b#docs/tape.md\1 §Tests and benchmarks#g
s#TAPE\.md\(`\?\) \(§\|section \|sections \)\?11\.4\b#docs/tape.md\1 §Tests and benchmarks#g
s#TAPE\.md\(`\?\) \(§\|section \|sections \)\?11\.5\b#docs/tape.md\1 §Tests and benchmarks#g
s#TAPE\.md\(`\?\) \(§\|section \|sections \)\?11\.6\b#docs/tape.md\1 §Tests and benchmarks#g
s#TAPE\.md\(`\?\) \(§\|section \|sections \)\?11\.7\b#docs/tape.md\1 §Tests and benchmarks#g
s#TAPE\.md\(`\?\) \(§\|section \|sections \)\?11\.8\b#docs/tape.md\1 §Tests and benchmarks#g
s#TAPE\.md\(`\?\) \(§\|section \|sections \)\?3\.1\b#docs/tape.md\1 §Data structures#g
s#TAPE\.md\(`\?\) \(§\|section \|sections \)\?3\.2\b#docs/tape.md\1 §Data structures#g
s#TAPE\.md\(`\?\) \(§\|section \|sections \)\?3\.3\b#docs/tape.md\1 §Data structures#g
s#TAPE\.md\(`\?\) \(§\|section \|sections \)\?3\.4\b#docs/tape.md\1 §Data structures#g
s#TAPE\.md\(`\?\) \(§\|section \|sections \)\?3\.5\b#docs/tape.md\1 §Data structures#g
s#TAPE\.md\(`\?\) \(§\|section \|sections \)\?3\.6\b#docs/tape.md\1 §Data structures#g
s#TAPE\.md\(`\?\) \(§\|section \|sections \)\?5\.1\b#docs/tape.md\1 §Parallel recording and pullback#g
s#TAPE\.md\(`\?\) \(§\|section \|sections \)\?5\.2\b#docs/tape.md\1 §Parallel recording and pullback#g
s#TAPE\.md\(`\?\) \(§\|section \|sections \)\?5\.3\b#docs/tape.md\1 §Parallel recording and pullback#g
s#TAPE\.md\(`\?\) \(§\|section \|sections \)\?5\.4\b#docs/tape.md\1 §Parallel recording and pullback#g
s#TAPE\.md\(`\?\) \(§\|section \|sections \)\?5\.5\b#docs/tape.md\1 §Parallel recording and pullback#g
s#TAPE\.md\(`\?\) \(§\|section \|sections \)\?5\.6\b#docs/tape.md\1 §Parallel recording and pullback#g
s#TAPE\.md\(`\?\) \(§\|section \|sections \)\?5\.7\b#docs/tape.md\1 §Parallel recording and pullback#g
s#TAPE\.md\(`\?\) \(§\|section \|sections \)\?5\.8\b#docs/tape.md\1 §Parallel recording and pullback#g
s#TAPE\.md\(`\?\) \(§\|section \|sections \)\?10\b#docs/tape.md\1 §Tests and benchmarks#g
s#TAPE\.md\(`\?\) \(§\|section \|sections \)\?11\b#docs/tape.md\1 §Tests and benchmarks#g
s#TAPE\.md\(`\?\) \(§\|section \|sections \)\?12\b#docs/tape.md\1 §Tests and benchmarks#g
s#TAPE\.md\(`\?\) \(§\|section \|sections \)\?13\b#docs/tape.md\1 §Tests and benchmarks#g
s#TAPE\.md\(`\?\) \(§\|section \|sections \)\?14\b#docs/tape.md\1 §Tests and benchmarks#g
s#TAPE\.md\(`\?\) \(§\|section \|sections \)\?0\b#docs/tape.md\1 §Concepts#g
s#TAPE\.md\(`\?\) \(§\|section \|sections \)\?1\b#docs/tape.md\1 §Concepts#g
s#TAPE\.md\(`\?\) \(§\|section \|sections \)\?2\b#docs/tape.md\1 §Concepts#g
s#TAPE\.md\(`\?\) \(§\|section \|sections \)\?3\b#docs/tape.md\1 §Data structures#g
s#TAPE\.md\(`\?\) \(§\|section \|sections \)\?4\b#docs/tape.md\1 §The sequential algorithm#g
s#TAPE\.md\(`\?\) \(§\|section \|sections \)\?5\b#docs/tape.md\1 §Parallel recording and pullback#g
s#TAPE\.md\(`\?\) \(§\|section \|sections \)\?6\b#docs/tape.md\1 §Forward mode, Jacobians and second order#g
s#TAPE\.md\(`\?\) \(§\|section \|sections \)\?7\b#docs/tape.md\1 §Forward mode, Jacobians and second order#g
s#TAPE\.md\(`\?\) \(§\|section \|sections \)\?8\b#docs/tape.md\1 §API#g
s#TAPE\.md\(`\?\) \(§\|section \|sections \)\?9\b#docs/tape.md\1 §Misuse and errors#g

# REVERSIBLE.md, numbered sections (subsections first).
s#REVERSIBLE\.md\(`\?\) \(§\|section \|sections \)\?11\.1\b#docs/reversible.md\1 §Examples and tests#g
s#REVERSIBLE\.md\(`\?\) \(§\|section \|sections \)\?11\.2\b#benchmarks/README.md\1#g
s#REVERSIBLE\.md\(`\?\) \(§\|section \|sections \)\?11\.3\b#benchmarks/README.md\1#g
s#REVERSIBLE\.md\(`\?\) \(§\|section \|sections \)\?11\.4\b#benchmarks/README.md\1#g
s#REVERSIBLE\.md\(`\?\) \(§\|section \|sections \)\?3\.10\b#docs/reversible.md\1 §Escapes#g
s#REVERSIBLE\.md\(`\?\) \(§\|section \|sections \)\?3\.1\b#docs/reversible.md\1 §Function form#g
s#REVERSIBLE\.md\(`\?\) \(§\|section \|sections \)\?3\.2\b#docs/reversible.md\1 §Places and values#g
s#REVERSIBLE\.md\(`\?\) \(§\|section \|sections \)\?3\.3\b#docs/reversible.md\1 §Statements#g
s#REVERSIBLE\.md\(`\?\) \(§\|section \|sections \)\?3\.4\b#docs/reversible.md\1 §Instructions#g
s#REVERSIBLE\.md\(`\?\) \(§\|section \|sections \)\?3\.5\b#docs/reversible.md\1 §Calls#g
s#REVERSIBLE\.md\(`\?\) \(§\|section \|sections \)\?3\.6\b#docs/reversible.md\1 §Ancillas#g
s#REVERSIBLE\.md\(`\?\) \(§\|section \|sections \)\?3\.7\b#docs/reversible.md\1 §Compute, copy, uncompute#g
s#REVERSIBLE\.md\(`\?\) \(§\|section \|sections \)\?3\.8\b#docs/reversible.md\1 §Control flow#g
s#REVERSIBLE\.md\(`\?\) \(§\|section \|sections \)\?3\.9\b#docs/reversible.md\1 §The aliasing rule#g
s#REVERSIBLE\.md\(`\?\) \(§\|section \|sections \)\?5\.1\b#docs/reversible.md\1 §At compile time#g
s#REVERSIBLE\.md\(`\?\) \(§\|section \|sections \)\?5\.2\b#docs/reversible.md\1 §At run time#g
s#REVERSIBLE\.md\(`\?\) \(§\|section \|sections \)\?5\.3\b#docs/reversible.md\1 §Turning checks off#g
s#REVERSIBLE\.md\(`\?\) \(§\|section \|sections \)\?6\.1\b#docs/reversible.md\1 §Numeric types#g
s#REVERSIBLE\.md\(`\?\) \(§\|section \|sections \)\?6\.2\b#docs/reversible.md\1 §Numeric types#g
s#REVERSIBLE\.md\(`\?\) \(§\|section \|sections \)\?6\.3\b#docs/reversible.md\1 §Numeric types#g
s#REVERSIBLE\.md\(`\?\) \(§\|section \|sections \)\?6\.4\b#docs/reversible.md\1 §Numeric types#g
s#REVERSIBLE\.md\(`\?\) \(§\|section \|sections \)\?6\.5\b#docs/reversible.md\1 §Numeric types#g
s#REVERSIBLE\.md\(`\?\) \(§\|section \|sections \)\?7\.1\b#docs/reversible.md\1 §GVar#g
s#REVERSIBLE\.md\(`\?\) \(§\|section \|sections \)\?7\.2\b#docs/reversible.md\1 §Gradients#g
s#REVERSIBLE\.md\(`\?\) \(§\|section \|sections \)\?7\.3\b#docs/reversible.md\1 §Adjoint rules#g
s#REVERSIBLE\.md\(`\?\) \(§\|section \|sections \)\?7\.4\b#docs/reversible.md\1 §Ancillas#g
s#REVERSIBLE\.md\(`\?\) \(§\|section \|sections \)\?7\.5\b#docs/reversible.md\1 §Jacobians and Hessians#g
s#REVERSIBLE\.md\(`\?\) \(§\|section \|sections \)\?7\.6\b#docs/reversible.md\1 §Jacobians and Hessians#g
s#REVERSIBLE\.md\(`\?\) \(§\|section \|sections \)\?7\.7\b#docs/reversible.md\1 §Examples and tests#g
s#REVERSIBLE\.md\(`\?\) \(§\|section \|sections \)\?7\.8\b#docs/reversible.md\1 §New instructions#g
s#REVERSIBLE\.md\(`\?\) \(§\|section \|sections \)\?9\.1\b#docs/reversible.md\1 §Performance#g
s#REVERSIBLE\.md\(`\?\) \(§\|section \|sections \)\?9\.2\b#docs/reversible.md\1 §Performance#g
s#REVERSIBLE\.md\(`\?\) \(§\|section \|sections \)\?9\.3\b#docs/reversible.md\1 §Performance#g
s#REVERSIBLE\.md\(`\?\) \(§\|section \|sections \)\?9\.4\b#docs/reversible.md\1 §Performance#g
s#REVERSIBLE\.md\(`\?\) \(§\|section \|sections \)\?9\.5\b#docs/reversible.md\1 §Performance#g
s#REVERSIBLE\.md\(`\?\) \(§\|section \|sections \)\?9\.6\b#docs/reversible.md\1 §Performance#g
s#REVERSIBLE\.md\(`\?\) \(§\|section \|sections \)\?10\b#docs/reversible.md\1 §Examples and tests#g
s#REVERSIBLE\.md\(`\?\) \(§\|section \|sections \)\?11\b#docs/reversible.md\1 §Examples and tests#g
s#REVERSIBLE\.md\(`\?\) \(§\|section \|sections \)\?12\b#docs/reversible.md\1 §Examples and tests#g
s#REVERSIBLE\.md\(`\?\) \(§\|section \|sections \)\?1\b#docs/reversible.md\1 §Crates#g
s#REVERSIBLE\.md\(`\?\) \(§\|section \|sections \)\?2\b#docs/reversible.md\1 §A first example#g
s#REVERSIBLE\.md\(`\?\) \(§\|section \|sections \)\?3\b#docs/reversible.md\1 §The statement language#g
s#REVERSIBLE\.md\(`\?\) \(§\|section \|sections \)\?4\b#docs/reversible.md\1 §The inverse#g
s#REVERSIBLE\.md\(`\?\) \(§\|section \|sections \)\?5\b#docs/reversible.md\1 §Invertibility errors#g
s#REVERSIBLE\.md\(`\?\) \(§\|section \|sections \)\?6\b#docs/reversible.md\1 §Numeric types#g
s#REVERSIBLE\.md\(`\?\) \(§\|section \|sections \)\?7\b#docs/reversible.md\1 §Differentiation#g
s#REVERSIBLE\.md\(`\?\) \(§\|section \|sections \)\?8\b#docs/reversible.md\1 §API#g
s#REVERSIBLE\.md\(`\?\) \(§\|section \|sections \)\?9\b#docs/reversible.md\1 §Performance#g

# BENCHMARKS.md, numbered sections (subsections first).
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?0\.1\b#benchmarks/README.md\1 §the input generator#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?0\.2\b#benchmarks/README.md\1 §the input generator#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?0\.3\b#benchmarks/README.md\1 §the input generator#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?0\.4\b#benchmarks/README.md\1 §the input generator#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?0\.5\b#benchmarks/README.md\1 §the input generator#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?0\.6\b#benchmarks/README.md\1 §the input generator#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?0\.7\b#benchmarks/README.md\1 §the input generator#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?0\.8\b#benchmarks/README.md\1 §the input generator#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?0\.9\b#benchmarks/README.md\1 §the input generator#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?1\.1\b#benchmarks/README.md\1 §GMM#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?1\.2\b#benchmarks/README.md\1 §GMM#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?1\.3\b#benchmarks/README.md\1 §GMM#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?1\.4\b#benchmarks/README.md\1 §GMM#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?1\.5\b#benchmarks/README.md\1 §GMM#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?1\.6\b#benchmarks/README.md\1 §GMM#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?1\.7\b#benchmarks/README.md\1 §GMM#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?1\.8\b#benchmarks/README.md\1 §GMM#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?1\.9\b#benchmarks/README.md\1 §GMM#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?2\.1\b#benchmarks/README.md\1 §BA#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?2\.2\b#benchmarks/README.md\1 §BA#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?2\.3\b#benchmarks/README.md\1 §BA#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?2\.4\b#benchmarks/README.md\1 §BA#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?2\.5\b#benchmarks/README.md\1 §BA#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?2\.6\b#benchmarks/README.md\1 §BA#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?2\.7\b#benchmarks/README.md\1 §BA#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?2\.8\b#benchmarks/README.md\1 §BA#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?2\.9\b#benchmarks/README.md\1 §BA#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?3\.1\b#benchmarks/README.md\1 §HAND#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?3\.2\b#benchmarks/README.md\1 §HAND#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?3\.3\b#benchmarks/README.md\1 §HAND#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?3\.4\b#benchmarks/README.md\1 §HAND#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?3\.5\b#benchmarks/README.md\1 §HAND#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?3\.6\b#benchmarks/README.md\1 §HAND#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?3\.7\b#benchmarks/README.md\1 §HAND#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?3\.8\b#benchmarks/README.md\1 §HAND#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?3\.9\b#benchmarks/README.md\1 §HAND#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?4\.1\b#benchmarks/README.md\1 §LSTM#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?4\.2\b#benchmarks/README.md\1 §LSTM#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?4\.3\b#benchmarks/README.md\1 §LSTM#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?4\.4\b#benchmarks/README.md\1 §LSTM#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?4\.5\b#benchmarks/README.md\1 §LSTM#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?4\.6\b#benchmarks/README.md\1 §LSTM#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?4\.7\b#benchmarks/README.md\1 §LSTM#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?4\.8\b#benchmarks/README.md\1 §LSTM#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?4\.9\b#benchmarks/README.md\1 §LSTM#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?5\.1\b#benchmarks/README.md\1 §k-means#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?5\.2\b#benchmarks/README.md\1 §k-means#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?5\.3\b#benchmarks/README.md\1 §k-means#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?5\.4\b#benchmarks/README.md\1 §k-means#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?5\.5\b#benchmarks/README.md\1 §k-means#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?5\.6\b#benchmarks/README.md\1 §k-means#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?5\.7\b#benchmarks/README.md\1 §k-means#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?5\.8\b#benchmarks/README.md\1 §k-means#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?5\.9\b#benchmarks/README.md\1 §k-means#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?6\.1\b#benchmarks/README.md\1 §NNMF#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?6\.2\b#benchmarks/README.md\1 §NNMF#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?6\.3\b#benchmarks/README.md\1 §NNMF#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?6\.4\b#benchmarks/README.md\1 §NNMF#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?6\.5\b#benchmarks/README.md\1 §NNMF#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?6\.6\b#benchmarks/README.md\1 §NNMF#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?6\.7\b#benchmarks/README.md\1 §NNMF#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?6\.8\b#benchmarks/README.md\1 §NNMF#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?6\.9\b#benchmarks/README.md\1 §NNMF#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?7\.1\b#benchmarks/README.md\1 §micro benchmarks#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?7\.2\b#benchmarks/README.md\1 §micro benchmarks#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?7\.3\b#benchmarks/README.md\1 §micro benchmarks#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?7\.4\b#benchmarks/README.md\1 §micro benchmarks#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?7\.5\b#benchmarks/README.md\1 §micro benchmarks#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?7\.6\b#benchmarks/README.md\1 §micro benchmarks#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?7\.7\b#benchmarks/README.md\1 §micro benchmarks#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?7\.8\b#benchmarks/README.md\1 §micro benchmarks#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?7\.9\b#benchmarks/README.md\1 §micro benchmarks#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?8\.1\b#benchmarks/README.md\1 §BA project#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?8\.2\b#benchmarks/README.md\1 §BA project#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?8\.3\b#benchmarks/README.md\1 §BA project#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?8\.4\b#benchmarks/README.md\1 §BA project#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?8\.5\b#benchmarks/README.md\1 §BA project#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?8\.6\b#benchmarks/README.md\1 §BA project#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?8\.7\b#benchmarks/README.md\1 §BA project#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?8\.8\b#benchmarks/README.md\1 §BA project#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?8\.9\b#benchmarks/README.md\1 §BA project#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?9\.1\b#benchmarks/README.md\1 §timing#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?9\.2\b#benchmarks/README.md\1 §timing#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?9\.3\b#benchmarks/README.md\1 §timing#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?9\.4\b#benchmarks/README.md\1 §timing#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?9\.5\b#benchmarks/README.md\1 §timing#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?9\.6\b#benchmarks/README.md\1 §timing#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?9\.7\b#benchmarks/README.md\1 §timing#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?9\.8\b#benchmarks/README.md\1 §timing#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?9\.9\b#benchmarks/README.md\1 §timing#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?0\b#benchmarks/README.md\1 §the input generator#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?1\b#benchmarks/README.md\1 §GMM#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?2\b#benchmarks/README.md\1 §BA#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?3\b#benchmarks/README.md\1 §HAND#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?4\b#benchmarks/README.md\1 §LSTM#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?5\b#benchmarks/README.md\1 §k-means#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?6\b#benchmarks/README.md\1 §NNMF#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?7\b#benchmarks/README.md\1 §micro benchmarks#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?8\b#benchmarks/README.md\1 §BA project#g
s#BENCHMARKS\.md\(`\?\) \(§\|section \|sections \)\?9\b#benchmarks/README.md\1 §timing#g

# Bare file names.
s#LANGUAGE\.md#docs/language.md#g
s#DESIGN\.md#docs/design.md#g
s#TAPE\.md#docs/tape.md#g
s#REVERSIBLE\.md#docs/reversible.md#g
s#BENCHMARKS\.md#benchmarks/README.md#g
