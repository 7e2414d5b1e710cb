; n bytes from %s to %d, the destination's whole 64-byte lines written with
; streaming stores (they skip the read of each line that a normal store does;
; <16 x i32> is legalized to the host's widest vectors), the partial lines at
; either end by memcpy; the fence orders the streamed lines before the
; kernel's completion is published. Used by the memcpy parts of a cat whose
; output streams. Each line asks for the source 1 KiB ahead into L2
; (prefetcht1): a loop of only loads and streaming stores issues its loads
; faster than the hardware prefetchers fetch. Measured on the Intel Xeon of
; round 29 (docs/cpu-path.md): a cat of two 32 MiB inputs along axis 0,
; 0.92 -> 1.20 of the ceiling of that round's start, 1 / 2 threads alike; as
; glibc's large copies, every host. A prefetch never faults: those past the
; source's end are harmless (the address is formed by an integer add). The
; kernel declares llvm.prefetch (emit_parts: once, whoever else uses it).
define internal void @ixjit.stream_copy(ptr noalias %d, ptr noalias %s, i64 %n) nounwind {
entry:
  %addr = ptrtoint ptr %d to i64
  %mis = sub i64 0, %addr
  %head.line = and i64 %mis, 63
  %fits = icmp ult i64 %head.line, %n
  %head = select i1 %fits, i64 %head.line, i64 %n
  call void @llvm.memcpy.p0.p0.i64(ptr %d, ptr %s, i64 %head, i1 false)
  %rest = sub i64 %n, %head
  %lines = lshr i64 %rest, 6
  %d.line = getelementptr i8, ptr %d, i64 %head
  %s.line = getelementptr i8, ptr %s, i64 %head
  %any = icmp ne i64 %lines, 0
  br i1 %any, label %line, label %tail
line:
  %i = phi i64 [ 0, %entry ], [ %i.next, %line ]
  %off = shl i64 %i, 6
  %sp = getelementptr i8, ptr %s.line, i64 %off
  %dp = getelementptr i8, ptr %d.line, i64 %off
  %sp.i = ptrtoint ptr %sp to i64
  %ahead.i = add i64 %sp.i, 1024
  %ahead = inttoptr i64 %ahead.i to ptr
  call void @llvm.prefetch.p0(ptr %ahead, i32 0, i32 2, i32 1)
  %v = load <16 x i32>, ptr %sp, align 1
  store <16 x i32> %v, ptr %dp, align 64, !nontemporal !@@MD_NONTEMPORAL@@
  %i.next = add i64 %i, 1
  %more = icmp ult i64 %i.next, %lines
  br i1 %more, label %line, label %tail
tail:
  %body = shl i64 %lines, 6
  %d.tail = getelementptr i8, ptr %d.line, i64 %body
  %s.tail = getelementptr i8, ptr %s.line, i64 %body
  %left = and i64 %rest, 63
  call void @llvm.memcpy.p0.p0.i64(ptr %d.tail, ptr %s.tail, i64 %left, i1 false)
  fence seq_cst
  ret void
}
