; ixjit @@STRATEGY@@ kernel (elementwise: copy, fill, cat)
; signature: @@SIGNATURE@@
;
; Each call moves the points [begin, end) of the iteration space in row-major
; order. The first point is decomposed once (bound-aware magic division); then
; rows advance with odometer carries, and the innermost dim is a plain loop.
define @@LINKAGE@@void @@@NAME@@(ptr %ptrs, ptr %offs, i64 %begin, i64 %end) nounwind {
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
  br label %inner

inner:
  %i = phi i64 [ %istart64, %row.body ], [ %i.next, %inner.latch ]
@@INNER@@
  br label %inner.latch

inner.latch:
  %i.next = add nuw nsw i64 %i, @@STEP@@
  %icont = icmp ult i64 %i.next, %iend
  br i1 %icont, label %inner, label %row.next

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
