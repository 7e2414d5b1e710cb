; ixjit @@STRATEGY@@ kernel (elementwise: copy, fill, cat)
; signature: @@SIGNATURE@@
;
; Each call moves the points [begin, end) of the iteration space in row-major
; order. The first point is decomposed once (bound-aware magic division); then
; rows advance with odometer carries, and the innermost dim is a plain loop.
; A row may have an aligned vector loop in its middle ([%vbeg, %vend): whole
; destination lines); the plain loop then moves the head before it and the
; tail after it.
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
  br label %seg

seg:
  %seg.i = phi i64 [ %istart64, %row.body ], [ %vend, %vector.done ]
  %seg.end = phi i64 [ %vbeg, %row.body ], [ %iend, %vector.done ]
  %seg.any = icmp ult i64 %seg.i, %seg.end
  br i1 %seg.any, label %inner, label %seg.next

inner:
  %i = phi i64 [ %seg.i, %seg ], [ %i.next, %inner.latch ]
@@INNER@@
  br label %inner.latch

inner.latch:
  %i.next = add nuw nsw i64 %i, @@STEP@@
  %icont = icmp ult i64 %i.next, %seg.end
  br i1 %icont, label %inner, label %seg.next

seg.next:
  %row.done = icmp eq i64 %seg.end, %iend
  br i1 %row.done, label %row.next, label %vector.pre

vector.pre:
  %vany = icmp ult i64 %vbeg, %vend
  br i1 %vany, label %vector, label %vector.done

vector:
  %vi = phi i64 [ %vbeg, %vector.pre ], [ %vi.next, %vector ]
@@VECTOR@@
  %vi.next = add nuw nsw i64 %vi, @@LANES@@
  %vcont = icmp ult i64 %vi.next, %vend
  br i1 %vcont, label %vector, label %vector.done

vector.done:
  br label %seg

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
