// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// @title OGT for contracts (the EVM's BALANCE is an account's OMC).
/// @notice At 0x0000000000000000000000000000000000000802 on every svc-node chain.
interface IOGT {
    /// Liquid OGT, and OGT bonded for every purpose together, in base units.
    function ogtBalanceOf(address account) external view returns (uint256 balance, uint256 bonded);

    /// OGT bonded for one purpose: "stake" (a validator), "compute" or "storage" (a provider).
    function bondOf(address account, string calldata purpose) external view returns (uint256 bonded);
}
