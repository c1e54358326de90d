// SPDX-License-Identifier: Apache-2.0
// The client matrix's contract (scripts/client-matrix.ts, D-260): it stores a value and emits an event.
// No Solidity compiler is installed here, so note.json holds bytecode assembled by hand from the listing below,
// with the behaviour of this source for well-formed calls. Unlike solc's output it does not refuse a call that
// carries value or short calldata, and it has no metadata trailer. Check the listing with
// `npx cast disassemble <bytecode>` (Foundry's cast, a dev dependency).
pragma solidity ^0.8.0;

contract Note {
    uint256 private stored = 7; // slot 0, set by the constructor

    event Stored(address indexed from, uint256 value);

    function set(uint256 value) external {
        stored = value;
        emit Stored(msg.sender, value);
    }

    function get() external view returns (uint256) {
        return stored;
    }
}

// Deployment code (16 bytes, then the runtime):
//   00 PUSH1 0x07  02 PUSH1 0x00  04 SSTORE                 sstore(0, 7)
//   05 PUSH1 0x5d  07 DUP1                                  runtime length 93, twice
//   08 PUSH1 0x10  0a PUSH1 0x00  0c CODECOPY               codecopy(0, 16, 93)
//   0d PUSH1 0x00  0f RETURN                                return(0, 93)
//
// Runtime (93 bytes):
//   00 PUSH1 0x00  02 CALLDATALOAD  03 PUSH1 0xe0  05 SHR   the selector
//   06 DUP1  07 PUSH4 0x60fe47b1 (set(uint256))  0c EQ  0d PUSH1 0x1e  0f JUMPI
//   10 DUP1  11 PUSH4 0x6d4ce63c (get())         16 EQ  17 PUSH1 0x51  19 JUMPI
//   1a PUSH1 0x00  1c DUP1  1d REVERT                       any other selector
//   1e JUMPDEST  1f PUSH1 0x04  21 CALLDATALOAD             set: the argument
//   22 DUP1  23 PUSH1 0x00  25 SSTORE                       sstore(0, value)
//   26 PUSH1 0x00  28 MSTORE                                mstore(0, value)
//   29 CALLER  2a PUSH32 keccak256("Stored(address,uint256)")
//   4b PUSH1 0x20  4d PUSH1 0x00  4f LOG2  50 STOP          log2(0, 32, topic, caller)
//   51 JUMPDEST  52 PUSH1 0x00  54 SLOAD  55 PUSH1 0x00  57 MSTORE
//   58 PUSH1 0x20  5a PUSH1 0x00  5c RETURN                 get: return(0, 32) of slot 0
