// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import "./IOON.sol";

/// @title Pays for a WASM job on the OON and keeps its verified answer.
/// @notice Fund it with OMC, then call `count` with the module's CID (a stored object) or its bytes
///   and the input: the chain runs the job on a compute provider, verifies the result and calls
///   `onJobDone` back, which keeps the output. Anyone may read `answers`.
contract WordCount {
    IOON public constant OON = IOON(0x0000000000000000000000000000000000000800);

    address public immutable owner;
    mapping(bytes32 => bytes) public answers;
    mapping(bytes32 => uint8) public statuses;
    bytes32 public lastJob;

    event Submitted(bytes32 indexed jobId);
    event Answered(bytes32 indexed jobId, uint8 status, string exit, bytes32 outputHash);

    constructor() payable {
        owner = msg.sender;
    }

    receive() external payable {}

    /// Submits a job running `code` (or the object `codeCid`) on `input`, paid from this contract's OMC.
    function count(string calldata codeCid, bytes calldata code, bytes calldata input, uint64 gasLimit, uint256 gasPrice, uint8 replicas) external returns (bytes32 jobId) {
        require(msg.sender == owner, "only the owner spends this contract's OMC");
        string[] memory args = new string[](0);
        jobId = OON.submitJob(
            IOON.JobRequest({
                runtime: "wasm",
                code: code,
                codeCid: codeCid,
                input: input,
                args: args,
                gasLimit: gasLimit,
                gasPrice: gasPrice,
                replicas: replicas,
                callback: this.onJobDone.selector,
                callbackGasLimit: 200_000
            })
        );
        lastJob = jobId;
        emit Submitted(jobId);
    }

    /// Called by the chain (only by the OON precompile) once the job is over.
    function onJobDone(bytes32 jobId, uint8 status, string calldata exit, bytes32 outputHash, bytes calldata output) external {
        require(msg.sender == address(OON), "only the OON precompile calls back");
        statuses[jobId] = status;
        if (status == OONStatus.FINALIZED) answers[jobId] = output;
        emit Answered(jobId, status, exit, outputHash);
    }
}
