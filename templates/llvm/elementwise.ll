; ixjit @@STRATEGY@@ kernel (elementwise: copy, fill, cat)
; signature: @@SIGNATURE@@
;
; Each call moves the points [begin, end) of the iteration space in row-major
; order. The first point is decomposed once (bound-aware magic division); then
; rows advance with odometer carries, and the innermost dim is a plain loop.
; A row may have two aligned vector loops ([%vbeg.0, %vend.0) and [%vbeg.1,
; %vend.1): whole destination lines; two where the source's row is rotated,
; one on each side of the wrap); the plain loop moves the rest between them.
define @@LINKAGE@@void @@@NAME@@(ptr %ptrs, ptr %offs, i64 %begin, i64 %end) nounwind @@ATTRIBUTES@@{
entry:
  %lin.addr = alloca i64
  %istart.addr = alloca @@IT@@
@@ALLOCAS@@
@@SETUP@@
  store i64 %begin, ptr %lin.addr
  br label %row

row:
  %lin = load i64, ptr %lin.addr
  %more = icmp slt i64 %lin, %end
  br i1 %more, label %row.body, label %exit

row.body:
  %istart = load @@IT@@, ptr %istart.addr
  %istart64 = @@ISTART64@@
  %rowleft = sub i64 @@INNER_EXTENT@@, %istart64
  %chunkleft = sub i64 %end, %lin
  %userow = icmp ult i64 %rowleft, %chunkleft
  %cnt = select i1 %userow, i64 %rowleft, i64 %chunkleft
  %iend = add i64 %istart64, %cnt
@@ROW_SETUP@@
@@VECTOR_SETUP@@
@@ROW_BRANCH@@

row.go:
@@ROW_GO@@
  br label %seg

seg: ; a plain segment; then vector range %seg.k, if any is left
  %seg.i = phi i64 [ %istart64, %row.go ], [ %vk.end, %vector.done ]
  %seg.end = phi i64 [ %vbeg.0, %row.go ], [ %vk.next, %vector.done ]
  %seg.k = phi i32 [ 0, %row.go ], [ %vk.k1, %vector.done ]
  %seg.any = icmp ult i64 %seg.i, %seg.end
  br i1 %seg.any, label %inner, label %seg.next

inner:
  %i = phi i64 [ %seg.i, %seg ], [ %i.next, %inner.latch ]
@@INNER_IV@@
@@INNER@@
  br label %inner.latch

inner.latch:
  %i.next = add nuw nsw i64 %i.o, @@STEP@@
  %icont = icmp ult i64 %i.next, %seg.end
  br i1 %icont, label %inner, label %seg.next

seg.next: ; rows without vector loops are done after their one plain segment
  %row.last = icmp eq i32 %seg.k, 2
  %row.done = or i1 %row.last, @@NO_VECTORS@@
  br i1 %row.done, label %row.next, label %vector.pre

vector.pre:
  %vk.first = icmp eq i32 %seg.k, 0
  %vk.beg = select i1 %vk.first, i64 %vbeg.0, i64 %vbeg.1
  %vk.end = select i1 %vk.first, i64 %vend.0, i64 %vend.1
  %vk.shift = select i1 %vk.first, i64 %vshift.0, i64 %vshift.1
  %vk.next = select i1 %vk.first, i64 %vbeg.1, i64 %iend
  %vk.k1 = add i32 %seg.k, 1
  %vany.range = icmp ult i64 %vk.beg, %vk.end
  %vany = and i1 %vany.range, @@VECTORS_ON@@
  br i1 %vany, label %vector, label %vector.done

vector:
  %vi = phi i64 [ %vk.beg, %vector.pre ], [ %vi.next, %vector ]
  %vi.o = call i64 asm "", "=r,0"(i64 %vi) nounwind memory(none)
@@VECTOR@@
  %vi.next = add nuw nsw i64 %vi.o, @@LANES@@
  %vcont = icmp ult i64 %vi.next, %vk.end
  br i1 %vcont, label %vector, label %vector.done

; the segments' loop stays a loop: unrolled, its three plain and two vector
; loops cost 15% more code generation for a few instructions per row
vector.done:
  br label %seg, !llvm.loop !@@MD_SEGMENTS@@

@@GROUP@@
row.next:
  %lin.next = add i64 %lin, %cnt
  store i64 %lin.next, ptr %lin.addr
  store @@IT@@ 0, ptr %istart.addr
@@CARRY@@
  br label %row

exit:
@@EXIT@@
  ret void
}

@@METADATA@@
@@DECLARATIONS@@
