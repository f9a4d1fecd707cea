// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// @title The OMP precompile: stored objects and their deals, for contracts.
/// @notice At 0x0000000000000000000000000000000000000801 on every svc-node chain. createDeal escrows
///   price x replicas from the calling contract's OMC exactly as a signed omp.createDeal does from an
///   account; the deal is accepted, proven and paid like any other.
interface IOMP {
    struct DealRequest {
        /// The object's CIDv1 (base32), as the upload to a storage provider answered.
        string cid;
        uint64 size;
        /// The object's storage commitment root, as the upload answered.
        bytes32 root;
        /// "image", "video" or "document".
        string format;
        string mediaType;
        uint8 replicas;
        uint64 durationBlocks;
        /// OMC base units per replica for the whole term.
        uint256 price;
        /// The storage provider the object was uploaded to (the first replica).
        address provider;
    }

    /// The object, its active deals and the providers keeping it (svc_ompGetObject also lists its
    /// pending, closed and failed deals: read those with dealStatus); reverts "OMP: not_found: ..."
    /// for an object no deal stores.
    function objectInfo(string calldata cid)
        external
        view
        returns (uint64 size, string memory mediaType, string memory format, bytes32[] memory deals, address[] memory providers);

    /// status 0 none, 1 pending, 2 active, 3 closed, 4 failed; startBlock and endBlock 0 until active.
    function dealStatus(bytes32 dealId)
        external
        view
        returns (uint8 status, address client, string memory cid, uint64 size, uint8 replicas, uint64 startBlock, uint64 endBlock, uint256 price, uint256 escrow, uint256 paid);

    function createDeal(DealRequest calldata request) external returns (bytes32 dealId);
}
