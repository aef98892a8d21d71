package testkit

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"os"
	"runtime"
)

// exitZero is machine code for exit(0) on Linux, per architecture.
var exitZero = map[string]struct {
	machine elf.Machine
	code    []byte
}{
	// mov edi, 0; mov eax, 60 (exit); syscall
	"amd64": {elf.EM_X86_64, []byte{0xbf, 0, 0, 0, 0, 0xb8, 60, 0, 0, 0, 0x0f, 0x05}},
	// mov x0, #0; mov x8, #93 (exit); svc #0
	"arm64": {elf.EM_AARCH64, []byte{0x00, 0x00, 0x80, 0xd2, 0xa8, 0x0b, 0x80, 0xd2, 0x01, 0x00, 0x00, 0xd4}},
}

// WriteTinyExit writes a static Linux program of about 130 bytes that does
// nothing but exit(0): one ELF header, one loadable segment, three
// instructions. As the target of the latency benchmark it costs only the
// exec itself, so what is measured is the hook binary, not its stand-in.
// It fails on other systems; callers fall back to quiettrue.
func WriteTinyExit(path string) error {
	arch, ok := exitZero[runtime.GOARCH]
	if runtime.GOOS != "linux" || !ok {
		return errors.New("no tiny program for " + runtime.GOOS + "/" + runtime.GOARCH)
	}
	const base = 0x400000
	const hdr = 64 + 56 // ELF header + one program header
	var b bytes.Buffer
	le := binary.LittleEndian
	binary.Write(&b, le, elf.Header64{
		Ident:     [16]byte{0x7f, 'E', 'L', 'F', byte(elf.ELFCLASS64), byte(elf.ELFDATA2LSB), byte(elf.EV_CURRENT)},
		Type:      uint16(elf.ET_EXEC),
		Machine:   uint16(arch.machine),
		Version:   uint32(elf.EV_CURRENT),
		Entry:     base + hdr,
		Phoff:     64,
		Ehsize:    64,
		Phentsize: 56,
		Phnum:     1,
	})
	size := uint64(hdr + len(arch.code))
	binary.Write(&b, le, elf.Prog64{
		Type: uint32(elf.PT_LOAD), Flags: uint32(elf.PF_R | elf.PF_X),
		Vaddr: base, Paddr: base, Filesz: size, Memsz: size, Align: 0x1000,
	})
	b.Write(arch.code)
	return os.WriteFile(path, b.Bytes(), 0o755)
}
