//! Accelerator-class policies (`FirstAvailable`, `Cheapest`, `BestFit`, `MostCapable`).
