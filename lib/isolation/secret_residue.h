// Forgetting the copies that reading a secret leaves behind where no
// variable points: in the CPU's vector registers, and on the stack below
// the current frame.
//
// Scanning or copying sectl's environment (string functions use vector
// registers) leaves its last bytes in those registers. A forked child
// starts with the same registers, and the first lazily bound call, a
// signal, or any spill writes them to the stack, where a plugin scanning
// its own memory would find a CI token (reference_plugins/hostile/
// hostile_parent_secret_scan.c found one in about one run in five).
// sectl is linked with -z now, so no lazy binding saves registers in it;
// these clear what remains.
#pragma once

namespace sectl::isolation {

// Zeroes every vector register this CPU has (x86-64: xmm/ymm/zmm 0-31;
// AArch64: v0-v31). Call it after code that read a secret.
void ClearVectorRegisters();

// Zeroes the 128 KiB of stack below the caller's frame: what callees that
// have returned left there.
void ClearDeadStack();

}  // namespace sectl::isolation
