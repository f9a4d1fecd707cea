// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// @title The OON precompile: compute jobs paid by a contract, verified by the chain.
/// @notice At 0x0000000000000000000000000000000000000800 on every svc-node chain.
///   submitJob escrows from the calling contract's OMC balance exactly as a signed oon.submitJob
///   does from an account: gasLimit x gasPrice x replicas, plus callbackGasLimit x gasPrice for the
///   callback. When the job is finalized, fails or expires, the chain calls the contract back in
///   that block's end step with
///   `function <yours>(bytes32 jobId, uint8 status, string exit, bytes32 outputHash, bytes output)`
///   from this address. The callback is made once, never retried: how it went is recorded on the job.
interface IOON {
    struct JobRequest {
        /// "wasm" (a WASI preview 1 module) or "evm" (runtime bytecode).
        string runtime;
        /// The code inline, or empty with codeCid.
        bytes code;
        /// The CID of a stored object with an active deal holding the code, or "".
        string codeCid;
        /// stdin of a WASM job, calldata of an EVM job.
        bytes input;
        string[] args;
        uint64 gasLimit;
        /// OMC base units per gas (the job's and its callback's).
        uint256 gasPrice;
        /// 1, or 2 (two providers must agree, else the chain re-executes).
        uint8 replicas;
        /// The selector of the function called back, or bytes4(0) for no callback.
        bytes4 callback;
        /// Gas the callback may use (at most 2,000,000); 0 without a callback.
        uint64 callbackGasLimit;
    }

    /// 0 none (or its record has left the state), 1 queued, 2 assigned, 3 committed, 4 finalized, 5 failed, 6 expired.
    function submitJob(JobRequest calldata request) external returns (bytes32 jobId);

    function jobStatus(bytes32 jobId)
        external
        view
        returns (uint8 status, address requester, string memory exit, bytes32 outputHash, uint64 gasUsed, uint256 fee, bytes memory output);
}

/// @notice The statuses a job's callback and jobStatus report.
library OONStatus {
    uint8 internal constant NONE = 0;
    uint8 internal constant QUEUED = 1;
    uint8 internal constant ASSIGNED = 2;
    uint8 internal constant COMMITTED = 3;
    uint8 internal constant FINALIZED = 4;
    uint8 internal constant FAILED = 5;
    uint8 internal constant EXPIRED = 6;
}
