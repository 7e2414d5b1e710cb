; ixjit tiled kernel (copy whose source and destination have different
; unit-stride dims: a transpose). Macro-tiles of @@TILE@@ x @@TILE@@ elements over
; the two innermost iteration dims (b: the source's unit-stride dim, a: the
; destination's); each call moves the tiles [begin, end). Inside a tile,
; blocks of @@MICRO@@ x @@MICRO@@ elements go through an in-register transpose
; (@@MICRO@@ vector loads along b, shuffles, @@MICRO@@ vector stores along a),
; @@STEP_A@@ columns at a time (a zip: all @@STEP_A@@ of a in one block, its
; source rows interleaved into one contiguous run; an unzip: all @@MICRO@@ of b
; in one block, one contiguous run deinterleaved into its rows);
; the rows and columns left over at the space's edges move one by one
; (where the blocks cover every tile whole, the edges are never entered: the
; emitter sends both of their branches on to the next tile).
; Staged (plan.staged: destination rows off lines, streamed), the blocks go to
; a buffer on the stack, a column of them more (the halo) where the next tile
; has blocks, and each tile row goes out as whole lines (emit_stage_flush);
; a tile spanning a (plan.span) stages one row of blocks at a time and sends
; the lines it completed out after each (emit_span_flush); so does a tile
; with plan.row_flush, its rows after each row of blocks (the flush inline in
; mrow.next, on to f.done), or inside a row each line as soon as a block
; completes it (emit_block_lines: the block loop's latch is then bl.done).
; signature: @@SIGNATURE@@
; "ixjit-no-vectorize": its vectors are written here; the JIT leaves LLVM's
; loop vectorizer out of a module of such functions (runtime/jit_llvm.c)
define @@LINKAGE@@void @@@NAME@@(ptr %ptrs, ptr %offs, i64 %begin, i64 %end) nounwind "ixjit-no-vectorize" @@ATTRIBUTES@@ {
entry:
@@SETUP@@
  br label %tile

tile:
  %tix = phi i64 [ %begin, %entry ], [ %tix.next, %tile.next ]
  %more = icmp slt i64 %tix, %end
  br i1 %more, label %tile.body, label %exit

tile.body:
@@TILE_SETUP@@
  %nb = sub nsw i64 @@BEND@@, @@B0@@
  %na = sub nsw i64 @@AEND@@, @@A0@@
@@BLOCK_EXTENTS@@
  %vb = select i1 @@VECTORS@@, i64 %vb.all, i64 0
  %va = select i1 @@VECTORS@@, i64 %va.all, i64 0
@@HALO@@
@@SPAN_SETUP@@
  %hasb = icmp sgt i64 %vb, 0
  %hasa = icmp sgt i64 %va, 0
  %hasv = and i1 %hasb, %hasa
  br i1 %hasv, label %@@BLOCKS_START@@, label %@@NO_BLOCKS@@

@@GATHER@@
; The blocks along a stay a loop: LLVM's unroller unrolled it where a block
; without prefetches fell under its size threshold (NCHW -> NHWC, two blocks a
; tile row: 2240 bytes of object code and 11 ms of code generation unrolled,
; 1536 and 5.6 ms rolled, the same bandwidth: docs/hot-path.md). A loop of one
; block still goes.
; The block and edge coordinates go to the addresses through an empty asm,
; an opaque copy that costs no instruction: the addresses are one base per
; block plus constants, already strength-reduced, and LLVM's loop strength
; reduction, which cannot see through it, no longer spends 40% of the code
; generation searching formulae for every row's address (docs/hot-path.md).
; The element loops of the edges step from the copy (one register, no copy
; per element); the block loops from the phi, whose trip counts LLVM then
; still knows (a tiny transpose's single block stays straight-line code).
mrow:
  %bi = phi i64 [ 0, %@@MROW_FROM@@ ], [ %bi.next, %@@MROW_LATCH@@ ]
@@MROW_PHIS@@  %bi.o = call i64 asm "", "=r,0"(i64 %bi) nounwind memory(none)
  br label %mcol

mcol:
  %ai = phi i64 [ 0, %mrow ], [ %ai.next, %@@MCOL_LATCH@@ ]
  %ai.o = call i64 asm "", "=r,0"(i64 %ai) nounwind memory(none)
@@MICRO_BLOCK@@
@@A_NEXT@@
  br i1 %acont.v, label %mcol, label %mrow.next, !llvm.loop !@@MD_BLOCK_COLS@@

mrow.next:
@@B_NEXT@@
@@ROW_FLUSH@@  br i1 %bcont.v, label %mrow, label %@@BLOCKS_DONE@@
@@FLUSH@@
; two rectangles left, element by element: the columns right of the blocks
; (all rows), then the rows below them (the blocks' columns)
edges:
  %right.a = add nsw i64 @@A0@@, %va
  %below.b = add nsw i64 @@B0@@, %vb
  br label %rect

rect:
  %r = phi i1 [ false, %edges ], [ true, %rect.next ]
  %blo = select i1 %r, i64 %below.b, i64 @@B0@@
  %alo = select i1 %r, i64 @@A0@@, i64 %right.a
  %ahi = select i1 %r, i64 %right.a, i64 @@AEND@@
  %bfill = icmp slt i64 %blo, @@BEND@@
  %afill = icmp slt i64 %alo, %ahi
  %fill = and i1 %bfill, %afill
  br i1 %fill, label %brow, label %rect.next

brow:
  %b = phi i64 [ %blo, %rect ], [ %b.next, %brow.next ]
  %b.o = call i64 asm "", "=r,0"(i64 %b) nounwind memory(none)
@@BROW@@
  br label %acol

acol:
  %a = phi i64 [ %alo, %brow ], [ %a.next, %acol ]
  %a.o = call i64 asm "", "=r,0"(i64 %a) nounwind memory(none)
@@ACOL@@
  %a.next = add nuw nsw i64 %a.o, 1
  %acont = icmp slt i64 %a.next, %ahi
  br i1 %acont, label %acol, label %brow.next

brow.next:
  %b.next = add nuw nsw i64 %b.o, 1
  %bcont = icmp slt i64 %b.next, @@BEND@@
  br i1 %bcont, label %brow, label %rect.next

rect.next:
  br i1 %r, label %tile.next, label %rect

tile.next:
  %tix.next = add nuw nsw i64 %tix, 1
  br label %tile

exit:
@@EXIT@@
  ret void
}

@@METADATA@@
@@DECLARATIONS@@
