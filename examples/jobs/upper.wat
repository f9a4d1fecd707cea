;; Reads stdin to its end and writes it to stdout in upper case (ASCII).
(module
  (import "wasi_snapshot_preview1" "fd_read" (func $fd_read (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  ;; iovec at 0 (buffer 64, length 1024); bytes read at 16; bytes written at 20
  (func (export "_start")
    (local $n i32) (local $i i32) (local $c i32)
    (loop $more
      (i32.store (i32.const 0) (i32.const 64))
      (i32.store (i32.const 4) (i32.const 1024))
      (drop (call $fd_read (i32.const 0) (i32.const 0) (i32.const 1) (i32.const 16)))
      (local.set $n (i32.load (i32.const 16)))
      (if (i32.gt_u (local.get $n) (i32.const 0))
        (then
          (local.set $i (i32.const 0))
          (loop $each
            (local.set $c (i32.load8_u (i32.add (i32.const 64) (local.get $i))))
            (if (i32.and (i32.ge_u (local.get $c) (i32.const 97)) (i32.le_u (local.get $c) (i32.const 122)))
              (then (i32.store8 (i32.add (i32.const 64) (local.get $i)) (i32.sub (local.get $c) (i32.const 32)))))
            (local.set $i (i32.add (local.get $i) (i32.const 1)))
            (br_if $each (i32.lt_u (local.get $i) (local.get $n))))
          (i32.store (i32.const 4) (local.get $n))
          (drop (call $fd_write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 20)))
          (br $more))))))
