// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import "./IOMP.sol";

/// @title Keeps media stored on the OMP for a term, paid from its own OMC.
/// @notice Upload the object to a storage provider, then call `shelve` with what the upload answered:
///   the chain makes a deal paid from this contract's balance, the provider accepts it and proves it
///   holds the object each period. `kept` reads the deal as the chain holds it.
contract MediaShelf {
    IOMP public constant OMP = IOMP(0x0000000000000000000000000000000000000801);

    address public immutable owner;
    bytes32 public lastDeal;

    event Shelved(bytes32 indexed dealId, string cid);

    constructor() payable {
        owner = msg.sender;
    }

    receive() external payable {}

    /// Makes a deal for an uploaded object, escrowing price x replicas from this contract's OMC.
    function shelve(IOMP.DealRequest calldata request) external returns (bytes32 dealId) {
        require(msg.sender == owner, "only the owner spends this contract's OMC");
        dealId = OMP.createDeal(request);
        lastDeal = dealId;
        emit Shelved(dealId, request.cid);
    }

    /// The deal's status (1 pending, 2 active, 3 closed, 4 failed), what it still holds in escrow and
    /// what it has paid its providers; `active` while the object is kept.
    function kept(bytes32 dealId) external view returns (bool active, uint8 status, uint256 escrow, uint256 paid) {
        (status, , , , , , , , escrow, paid) = OMP.dealStatus(dealId);
        active = status == 2;
    }
}
